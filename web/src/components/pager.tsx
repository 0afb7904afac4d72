/** Previous / page N of M / next, for every paged list. Shown only when there is more than one page. */
import { useTranslation } from 'react-i18next';

interface PagerProps {
  page: number;
  /** Rows in all, and per page. */
  total: number;
  pageSize: number;
  onPage(page: number): void;
}

export function Pager({ page, total, pageSize, onPage }: PagerProps) {
  const { t } = useTranslation();
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (total <= pageSize) return null;
  return (
    <nav className="pager" aria-label={t('app.paging')}>
      <button type="button" className="btn btn-small btn-secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('app.prev')}
      </button>
      <span className="muted">{t('app.page', { page, pages })}</span>
      <button type="button" className="btn btn-small btn-secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        {t('app.next')}
      </button>
    </nav>
  );
}
