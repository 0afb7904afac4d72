/**
 * Copies a text to the clipboard and says so: "Copied" on success, the spec's "Failed to copy"
 * when the browser refuses (no permission, an insecure page). The button is named after what
 * it copies, so a screen reader and a test can tell two of them apart.
 */
import { useTranslation } from 'react-i18next';

import { toast } from '@/stores/toast';

import { type IconProps, Svg } from './icons';

export async function copyText(text: string): Promise<boolean> {
  try {
    if (!navigator.clipboard) return false;
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const { t } = useTranslation();
  return (
    <button
      type="button"
      className="icon-button copy-button"
      aria-label={t('app.copyWhat', { what: label })}
      onClick={async () => {
        if (await copyText(text)) toast.success(t('app.copied'));
        else toast.error(t('errors.copyFailed'));
      }}
    >
      <CopyIcon />
    </button>
  );
}

const CopyIcon = (p: IconProps) => (
  <Svg {...p}>
    <rect x="9" y="9" width="13" height="13" rx="2" />
    <path d="M5 15H4a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2h9a2 2 0 0 1 2 2v1" />
  </Svg>
);
