/** A question before an act: the act runs once, its failure is shown here, and the dialog closes when it succeeds. */
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { FormError } from '@/components/form-error';
import { useSubmit } from '@/lib/use-submit';

interface ConfirmDialogProps {
  title: string;
  text: string;
  confirm: string;
  /** The act; the dialog closes when it succeeds. */
  onConfirm(): Promise<unknown>;
  onClose(): void;
}

export function ConfirmDialog({ title, text, confirm, onConfirm, onClose }: ConfirmDialogProps) {
  const { t } = useTranslation();
  const request = useSubmit({ holdOnSuccess: true });
  const run = () =>
    void request.run(async () => {
      await onConfirm();
      onClose();
    });
  return (
    <Dialog open title={title} onClose={onClose} className="dialog-form">
      <p className="confirm-text">{text}</p>
      <FormError text={request.error} />
      <div className="dialog-actions">
        <button type="button" className="btn btn-secondary" onClick={onClose}>
          {t('app.cancel')}
        </button>
        <button type="button" className="btn btn-primary" disabled={request.busy} onClick={run}>
          {confirm}
        </button>
      </div>
    </Dialog>
  );
}
