/**
 * Disabling or enabling an admin, confirmed first with what it does: a disabled admin can no
 * longer sign in or act, and every session of theirs ends at once.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { FormError } from '@/components/form-error';
import { errorMessage } from '@/lib/api-client';

import { type AdminRow, setAdminDisabled } from '../api';

export function AdminStatusDialog({ admin, onClose, onDone }: { admin: AdminRow; onClose(): void; onDone(): void }) {
  const { t } = useTranslation();
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const disabling = !admin.disabled;
  const name = admin.username;

  const confirm = async () => {
    if (busy) return;
    setBusy(true);
    setFailure(null);
    try {
      await setAdminDisabled(admin.id, disabling);
      onDone();
    } catch (e) {
      setFailure(errorMessage(e));
      setBusy(false);
    }
  };

  return (
    <Dialog open title={t(disabling ? 'admin.admins.disableTitle' : 'admin.admins.enableTitle', { name })} onClose={onClose} className="dialog-form">
      <p className="admin-note">{t(disabling ? 'admin.admins.disableExplain' : 'admin.admins.enableExplain', { name, count: admin.sessions })}</p>
      <FormError text={failure} />
      <div className="admin-action-buttons">
        <button type="button" className="btn btn-secondary" onClick={onClose}>
          {t('app.cancel')}
        </button>
        <button type="button" className={disabling ? 'btn btn-down' : 'btn btn-primary'} disabled={busy} onClick={() => void confirm()}>
          {t(disabling ? 'admin.admins.disable' : 'admin.admins.enable')}
        </button>
      </div>
    </Dialog>
  );
}
