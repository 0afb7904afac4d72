/**
 * `/admin/admins` (admins:read): every back-office account in creation order, with its role,
 * two-factor sign-in, live sessions, latest sign-in, password age and state. With admins:write
 * an admin adds others and disables or enables them (never themselves). The server bounds the
 * list (ADMINS_MAX), so it comes whole, unpaged.
 */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { adminCan, useAdminSession } from '@/stores/admin-session';
import { toast } from '@/stores/toast';

import { type AdminRow, fetchAdmins } from '../api';
import { AdminStatusDialog } from './admin-status-dialog';
import { CreateAdminDialog } from './create-admin-dialog';

function AdminCard({ row, self, canAct, onToggle }: { row: AdminRow; self: boolean; canAct: boolean; onToggle(): void }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const fields: Array<[string, string, boolean]> = [
    [t('admin.admins.twoFactor'), t(row.twoFactor ? 'admin.admins.on' : 'admin.admins.off'), false],
    [t('admin.admins.sessions'), String(row.sessions), true],
    // Dates read in the language's own direction (Arabic's marks included); only counts are forced left-to-right.
    [t('admin.admins.lastSignIn'), row.lastSignIn ? formatDateTime(row.lastSignIn, lang) : t('admin.admins.lastSignInNone'), false],
    [t('admin.admins.passwordChanged'), row.passwordChangedAt > 0 ? formatDateTime(row.passwordChangedAt, lang) : t('admin.admins.never'), false],
  ];
  return (
    <li className="admin-card admin-account-row" aria-label={row.username}>
      <div className="admin-order-head">
        <div className="admin-account-name">
          <strong dir="auto">{row.username}</strong>
          {self && <span className="admin-status admin-status-pending">{t('admin.admins.you')}</span>}
          <span className="muted">{t(`admin.roles.${row.role}`, { defaultValue: row.role })}</span>
        </div>
        <span className={row.disabled ? 'admin-status admin-status-rejected' : 'admin-status admin-status-completed'}>
          {t(row.disabled ? 'admin.admins.disabledState' : 'admin.admins.enabled')}
        </span>
      </div>
      <dl className="admin-order-fields">
        {fields.map(([label, value, number]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd className={number ? 'num' : undefined}>{value}</dd>
          </div>
        ))}
      </dl>
      {canAct && !self && (
        <div className="admin-order-actions">
          <button type="button" className="btn btn-small btn-secondary" aria-label={t(row.disabled ? 'admin.admins.enableOne' : 'admin.admins.disableOne', { name: row.username })} onClick={onToggle}>
            {t(row.disabled ? 'admin.admins.enable' : 'admin.admins.disable')}
          </button>
        </div>
      )}
    </li>
  );
}

export function AdminsPage() {
  const { t } = useTranslation();
  const me = useAdminSession((s) => s.admin);
  const canAct = adminCan(me, 'admins:write');
  const [admins, setAdmins] = useState<AdminRow[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [adding, setAdding] = useState(false);
  const [toggling, setToggling] = useState<AdminRow | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    setFailure(null);
    fetchAdmins(controller.signal)
      .then(setAdmins)
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(e));
      });
    return () => controller.abort();
  }, [reload]);

  const again = useCallback(() => setReload((n) => n + 1), []);

  const created = (username: string) => {
    setAdding(false);
    toast.success(t('admin.admins.created', { name: username }));
    again();
  };
  const toggled = () => {
    if (!toggling) return;
    toast.success(t(toggling.disabled ? 'admin.admins.enabledDone' : 'admin.admins.disabledDone', { name: toggling.username }));
    setToggling(null);
    again();
  };

  return (
    <div className="admin-page">
      <div className="admin-page-head">
        <h1 className="page-title">{t('admin.nav.admins')}</h1>
        {canAct && (
          <button type="button" className="btn btn-primary" onClick={() => setAdding(true)}>
            {t('admin.admins.add')}
          </button>
        )}
      </div>
      {failure ? (
        <ErrorState text={failure} onRetry={again} />
      ) : !admins ? (
        <SkeletonRows rows={4} columns={4} />
      ) : admins.length === 0 ? (
        <EmptyState text={t('admin.admins.none')} />
      ) : (
        <ul className="admin-orders" aria-label={t('admin.admins.list')}>
          {admins.map((row) => (
            <AdminCard key={row.id} row={row} self={row.id === me?.id} canAct={canAct} onToggle={() => setToggling(row)} />
          ))}
        </ul>
      )}
      {adding && <CreateAdminDialog onClose={() => setAdding(false)} onCreated={created} />}
      {toggling && <AdminStatusDialog admin={toggling} onClose={() => setToggling(null)} onDone={toggled} />}
    </div>
  );
}
