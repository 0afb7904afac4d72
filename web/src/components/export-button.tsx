/**
 * "Export CSV" (or another file, by `label`): asks the server for a file with the screen's
 * filters and hands it to the browser's downloads. One export at a time; a refusal (too many
 * a minute, server busy) is shown as a toast with the server's message.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { errorMessage } from '@/lib/api-client';
import { saveFile } from '@/lib/download';
import { toast } from '@/stores/toast';

interface ExportButtonProps {
  /** Fetches the file the filters describe. */
  fetchFile: () => Promise<{ blob: Blob; filename: string }>;
  /** The button's text; "Export CSV" when absent. */
  label?: string;
}

export function ExportButton({ fetchFile, label }: ExportButtonProps) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const { blob, filename } = await fetchFile();
      saveFile(blob, filename);
    } catch (error) {
      toast.error(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="btn btn-ghost btn-small" disabled={busy} aria-busy={busy} onClick={() => void run()}>
      {busy ? t('app.exporting') : (label ?? t('app.exportCsv'))}
    </button>
  );
}
