/** Small pieces the sign-in forms share. */
import type { ChangeEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { TotpCodeField } from '@/components/field';

export function FormFailure({ text }: { text: string | null }) {
  if (!text) return null;
  return (
    <div className="form-error" role="alert">
      {text}
    </div>
  );
}

export function TotpField({ value, onChange }: { value: string; onChange(e: ChangeEvent<HTMLInputElement>): void }) {
  const { t } = useTranslation();
  return <TotpCodeField label={t('auth.totpCode')} value={value} onChange={onChange} />;
}

export function SubmitButton({ busy, label }: { busy: boolean; label?: string }) {
  const { t } = useTranslation();
  return (
    <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
      {busy ? t('auth.working') : (label ?? t('auth.loginButton'))}
    </button>
  );
}
