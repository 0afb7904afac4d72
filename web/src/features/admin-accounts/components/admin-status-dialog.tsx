/**
 * Disabling or enabling an admin, confirmed first with what it does: a disabled admin can no
 * longer sign in or act, and every session of theirs ends at once.
 */
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { FormError } from '@/components/form-error';
import { useSubmit } from '@/lib/use-submit';

import { type AdminRow, setAdminDisabled } from '../api';

export function AdminStatusDialog({ admin, onClose, onDone }: { admin: AdminRow; onClose(): void; onDone(): void }) {
  const { t } = useTranslation();
  const request = useSubmit({ holdOnSuccess: true });
  const disabling = !admin.disabled;
  const name = admin.username;

  const confirm = () =>
    request.run(async () => {
      await setAdminDisabled(admin.id, disabling);
      onDone();
    });

  return (
    <Dialog open title={t(disabling ? 'admin.admins.disableTitle' : 'admin.admins.enableTitle', { name })} onClose={onClose} className="dialog-form">
      <p className="admin-note">{t(disabling ? 'admin.admins.disableExplain' : 'admin.admins.enableExplain', { name, count: admin.sessions })}</p>
      <FormError text={request.error} />
      <div className="admin-action-buttons">
        <button type="button" className="btn btn-secondary" onClick={onClose}>
          {t('app.cancel')}
        </button>
        <button type="button" className={disabling ? 'btn btn-down' : 'btn btn-primary'} disabled={request.busy} onClick={() => void confirm()}>
          {t(disabling ? 'admin.admins.disable' : 'admin.admins.enable')}
        </button>
      </div>
    </Dialog>
  );
}
