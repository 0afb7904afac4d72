/**
 * The copy trading page (`/copy`): the top traders for anyone, and, signed in, my own copy
 * trading beside them (below them on a phone); signed out, a way to sign in instead.
 */
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { useMyCopyView } from '../hooks/use-my-copy';
import { MyCopyTrading } from './my-copy-trading';
import { TopTraders } from './top-traders';

export function CopyTrading() {
  const { t } = useTranslation();
  const { signedIn, mine, error, reload } = useMyCopyView();
  return (
    <div className="copy-page">
      <div className="copy-head">
        <h1 className="page-title">{t('copyTrading.title')}</h1>
        <p className="muted small">{t('copyTrading.intro')}</p>
      </div>
      <TopTraders copying={new Set(mine?.following.map((l) => l.uid))} />
      {signedIn ? (
        <MyCopyTrading mine={mine} error={error} reload={reload} />
      ) : (
        <section className="card my-copy" aria-labelledby="my-copy-title">
          <h2 id="my-copy-title" className="section-title">
            {t('copyTrading.mine')}
          </h2>
          <p className="muted">{t('copyTrading.signInPrompt')}</p>
          <Link to="/login" className="btn btn-primary">
            {t('copyTrading.signIn')}
          </Link>
        </section>
      )}
    </div>
  );
}
