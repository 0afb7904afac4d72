/** `/admin/login`: the administrator sign-in card, with the site name and language. */
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

import { LanguageSwitcher } from '@/components/language-switcher';
import { DEFAULT_SITE_NAME, useSite } from '@/stores/site';

import { AdminLoginForm } from './admin-login-form';

export function AdminLoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const siteName = useSite((s) => s.info?.siteName) || DEFAULT_SITE_NAME;
  return (
    <div className="auth-page">
      <header className="auth-header">
        <span className="header-brand">{siteName}</span>
        <LanguageSwitcher />
      </header>
      <main className="auth-card card" id="main">
        <h1 className="auth-title">{t('admin.login.title')}</h1>
        <div className="auth-body">
          <AdminLoginForm onSignedIn={() => navigate('/admin/dashboard', { replace: true })} />
        </div>
      </main>
    </div>
  );
}
