/** A back-office page shown only to an admin whose role allows it (the server refuses too). */
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { adminCan, useAdminSession } from '@/stores/admin-session';

export function AdminNotFound() {
  const { t } = useTranslation();
  return (
    <div className="admin-page">
      <div className="empty-state">
        <h1 className="page-title">{t('app.notFound')}</h1>
        <Link to="/admin/dashboard" className="btn btn-secondary">
          {t('admin.nav.back')}
        </Link>
      </div>
    </div>
  );
}

/** `children` when the admin's permissions include `permission` (null: every admin). */
export function AdminOnly({ permission, children }: { permission: string | null; children: ReactNode }) {
  const admin = useAdminSession((s) => s.admin);
  return permission === null || adminCan(admin, permission) ? children : <AdminNotFound />;
}
