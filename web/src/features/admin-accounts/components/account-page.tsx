/**
 * `/admin/account`, for every admin: who they are, their role and what it may do (read from the
 * permissions), their own password, and their two-factor sign-in. `#password` (the admin
 * menu's "Change password") brings the password form into view and focuses it.
 */
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';

import { Spinner } from '@/components/states';
import { useAdminSession } from '@/stores/admin-session';

import { OwnPassword } from './own-password';
import { OwnTwoFactor } from './own-two-factor';
import { RolePowers } from './role-powers';

export function AccountPage() {
  const { t } = useTranslation();
  const admin = useAdminSession((s) => s.admin);
  const { hash, key } = useLocation();
  const password = useRef<HTMLElement>(null);
  // The form is there once the admin is: the effect runs again when they arrive.
  const loaded = admin !== null;

  useEffect(() => {
    if (hash !== '#password' || !password.current) return;
    password.current.scrollIntoView?.({ block: 'start' });
    password.current.querySelector('input')?.focus();
    // `key` too: the menu's link again while already here moves there again.
  }, [hash, key, loaded]);

  return (
    <div className="admin-page admin-account-page">
      <h1 className="page-title">{t('admin.account.title')}</h1>
      {!admin ? (
        <Spinner />
      ) : (
        <>
          <section className="admin-card" aria-labelledby="admin-profile-title">
            <h2 id="admin-profile-title" className="admin-card-title">
              {t('admin.account.profile')}
            </h2>
            <dl className="admin-order-fields">
              <div>
                <dt>{t('admin.account.username')}</dt>
                <dd dir="auto">{admin.username}</dd>
              </div>
              <div>
                <dt>{t('admin.account.role')}</dt>
                <dd>{t(`admin.roles.${admin.role}`, { defaultValue: admin.role })}</dd>
              </div>
            </dl>
            <RolePowers permissions={admin.permissions} />
          </section>
          <OwnPassword ref={password} />
          <OwnTwoFactor />
        </>
      )}
    </div>
  );
}
