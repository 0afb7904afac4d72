/** The toasts of `stores/toast`, announced politely (errors assertively). */
import { useTranslation } from 'react-i18next';

import { useToasts } from '@/stores/toast';

import { CloseIcon } from './icons';

export function Toasts() {
  const { t } = useTranslation();
  const toasts = useToasts((s) => s.toasts);
  const dismiss = useToasts((s) => s.dismiss);
  return (
    <div className="toasts">
      {toasts.map((item) => (
        <div key={item.id} className={`toast toast-${item.kind}`} role={item.kind === 'error' ? 'alert' : 'status'}>
          <span>{item.text}</span>
          <button type="button" className="icon-button" aria-label={t('app.close')} onClick={() => dismiss(item.id)}>
            <CloseIcon width={16} height={16} />
          </button>
        </div>
      ))}
    </div>
  );
}
