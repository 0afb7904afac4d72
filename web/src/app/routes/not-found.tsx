import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** Any other path: a page in the app, not the server's JSON 404. */
export function Component() {
  const { t } = useTranslation();
  return (
    <div className="page">
      <div className="empty-state">
        <h1 className="page-title">{t('app.notFound')}</h1>
        <Link to="/stocks" className="btn btn-secondary">
          {t('app.goHome')}
        </Link>
      </div>
    </div>
  );
}
