/**
 * The site's logo in the config form: a preview, an upload with its progress (lib/upload.ts;
 * the answer's URL goes into `basic.logo`, saved with the rest of the config), and removing
 * it. The type and size are checked before anything is sent; the server checks the content.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { errorMessage } from '@/lib/api-client';

import { LOGO_BYTES_MAX, LOGO_TYPES, uploadLogo } from '../api';

interface LogoFieldProps {
  url: string;
  siteName: string;
  canAct: boolean;
  onChange(url: string): void;
}

export function LogoField({ url, siteName, canAct, onChange }: LogoFieldProps) {
  const { t } = useTranslation();
  const hintId = useId();
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [uploaded, setUploaded] = useState(false);
  const inFlight = useRef<AbortController | null>(null);
  useEffect(() => () => inFlight.current?.abort(), []);

  const choose = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    input.value = ''; // the same file may be chosen again after a failure
    if (!file) return;
    setUploaded(false);
    if (!LOGO_TYPES.includes(file.type)) return setError(t('admin.config.logo.type'));
    if (file.size > LOGO_BYTES_MAX) return setError(t('admin.config.logo.size', { megabytes: LOGO_BYTES_MAX / (1024 * 1024) }));
    setError(null);
    setProgress(0);
    inFlight.current?.abort();
    const controller = new AbortController();
    inFlight.current = controller;
    try {
      const stored = await uploadLogo(file, { onProgress: setProgress, signal: controller.signal });
      onChange(stored.url);
      setUploaded(true);
    } catch (e) {
      if (!controller.signal.aborted) setError(errorMessage(e));
    } finally {
      if (inFlight.current === controller) {
        inFlight.current = null;
        setProgress(null);
      }
    }
  };

  return (
    <div className="field admin-logo">
      <span className="field-label">{t('admin.config.logo.title')}</span>
      <div className="admin-logo-row">
        <div className="admin-logo-preview">
          {url ? <img src={url} alt={t('admin.config.logo.alt', { site: siteName })} /> : <span className="muted small">{t('admin.config.logo.none')}</span>}
        </div>
        {canAct && (
          <div className="admin-logo-actions">
            <label className="btn btn-secondary btn-small">
              {t('admin.config.logo.upload')}
              <input type="file" className="sr-only" accept={LOGO_TYPES.join(',')} aria-describedby={hintId} disabled={progress !== null} onChange={(e) => void choose(e.target)} />
            </label>
            {url && (
              <button type="button" className="btn btn-secondary btn-small" disabled={progress !== null} onClick={() => (onChange(''), setUploaded(false))}>
                {t('admin.config.logo.remove')}
              </button>
            )}
          </div>
        )}
      </div>
      <div id={hintId} className="field-hint">
        {t('admin.config.logo.hint', { megabytes: LOGO_BYTES_MAX / (1024 * 1024) })}
      </div>
      {progress !== null && (
        <div className="upload-progress">
          <progress max={100} value={progress} aria-label={t('admin.config.logo.progress')} />
          <span className="num" aria-live="polite">
            {t('admin.config.logo.uploading', { percent: progress })}
          </span>
        </div>
      )}
      {uploaded && (
        <p className="field-hint" role="status">
          {t('admin.config.logo.uploaded')}
        </p>
      )}
      {error && (
        <div className="field-error" role="alert">
          {error}
        </div>
      )}
    </div>
  );
}
