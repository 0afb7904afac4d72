/**
 * The sign-in page (spec §2): tabs Login and Register. `/login` opens Login, `/login/register`
 * Register with the invite code from `?code=`. Forgot password is a three-step view of Login.
 */
import { Suspense, lazy, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';

import { LanguageSwitcher } from '@/components/language-switcher';
import { Spinner } from '@/components/states';
import { Tabs } from '@/components/tabs';
import { useSite } from '@/stores/site';

import { LoginPanel } from './login-panel';

// Fetched when shown: the login route stays small (BENCHMARKS.md, bundle budget).
const RegisterForm = lazy(() => import('./register-form').then((m) => ({ default: m.RegisterForm })));
const ForgotPassword = lazy(() => import('./forgot-password').then((m) => ({ default: m.ForgotPassword })));

/** The login page's default name (spec §3), until the server's site name arrives. */
export const LOGIN_SITE_NAME = 'CRYPTO TRADE';

export function AuthPage({ tab }: { tab: 'login' | 'register' }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const siteName = useSite((s) => s.info?.siteName) || LOGIN_SITE_NAME;
  const [forgot, setForgot] = useState(false);
  const code = params.get('code');

  const switchTab = (next: 'login' | 'register') => {
    setForgot(false);
    const query = code ? `?code=${encodeURIComponent(code)}` : '';
    navigate(next === 'login' ? `/login${query}` : `/login/register${query}`);
  };

  return (
    <div className="auth-page">
      <header className="auth-header">
        <Link to="/stocks" className="header-brand">
          {siteName}
        </Link>
        <LanguageSwitcher />
      </header>
      <main className="auth-card card" id="main">
        <h1 className="sr-only">{tab === 'login' ? t('auth.login') : t('auth.register')}</h1>
        <Tabs
          label={t('auth.tabs')}
          value={tab}
          onChange={switchTab}
          items={[
            { key: 'login', label: t('auth.login') },
            { key: 'register', label: t('auth.register') },
          ]}
        />
        <div className="auth-body">
          <Suspense fallback={<Spinner />}>
          {tab === 'register' ? (
            <RegisterForm key={code ?? ''} initialCode={code ?? ''} onRegistered={() => switchTab('login')} />
          ) : forgot ? (
            <ForgotPassword onBack={() => setForgot(false)} />
          ) : (
            <LoginPanel onForgot={() => setForgot(true)} />
          )}
          </Suspense>
        </div>
        <Link to="/stocks" className="auth-back">
          {t('auth.browseMarkets')}
        </Link>
      </main>
    </div>
  );
}
