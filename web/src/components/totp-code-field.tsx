/**
 * The 6-digit authenticator code field, as every sign-in and two-factor form asks for it: a
 * numeric keypad on phones, the browser's one-time-code autofill, left-to-right in Arabic too.
 * The label and messages come from the caller's own texts.
 */
import type { ChangeEvent, ReactNode } from 'react';

import { TOTP_DIGITS } from '@/lib/validation';

import { Field } from './field';

interface TotpCodeFieldProps {
  label: string;
  value: string;
  onChange(event: ChangeEvent<HTMLInputElement>): void;
  error?: string | null;
  hint?: ReactNode;
  name?: string;
  /** Focus the field when it appears (a sign-in's second step). */
  autoFocus?: boolean;
}

export function TotpCodeField({ label, value, onChange, error, hint, name = 'totpCode', autoFocus }: TotpCodeFieldProps) {
  return (
    <Field
      label={label}
      name={name}
      inputMode="numeric"
      autoComplete="one-time-code"
      dir="ltr"
      maxLength={TOTP_DIGITS}
      value={value}
      onChange={onChange}
      error={error}
      hint={hint}
      autoFocus={autoFocus}
    />
  );
}
