/** What a money form shows once its request went through: what happened, what comes next, Close. */
import { useTranslation } from 'react-i18next';

export function FormDone({ text, note, onClose }: { text: string; note?: string; onClose(): void }) {
  const { t } = useTranslation();
  return (
    <div className="form-done" role="status">
      <p>{text}</p>
      {note && <p className="muted">{note}</p>}
      <button type="button" className="btn btn-primary btn-block" onClick={onClose}>
        {t('app.close')}
      </button>
    </div>
  );
}
