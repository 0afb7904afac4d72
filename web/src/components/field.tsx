/**
 * A labelled input with its validation message: the label names the input, the message is
 * tied to it with aria-describedby and marks it aria-invalid, so a screen reader, a test and
 * a person find both the same way. Also the authenticator code's field, which every sign-in
 * and two-factor form shares (kept here, in the sign-in route's own chunk, rather than in a
 * chunk of its own: the login route's budget).
 */
import { type ChangeEvent, type InputHTMLAttributes, type ReactNode, useId } from 'react';

import { TOTP_DIGITS } from '@/lib/validation';

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  error?: string | null;
  hint?: ReactNode;
  /** Content after the input inside its row (a send-code button, a unit). */
  after?: ReactNode;
}

export function Field({ label, error, hint, after, className, ...input }: FieldProps) {
  const id = useId();
  const messageId = `${id}-message`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? messageId : null, hint ? hintId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={['field', className ?? ''].join(' ')}>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <div className="field-row">
        <input id={id} className="input" aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
        {after}
      </div>
      {hint && !error && (
        <div id={hintId} className="field-hint">
          {hint}
        </div>
      )}
      {error && (
        <div id={messageId} className="field-error" role="alert">
          {error}
        </div>
      )}
    </div>
  );
}

/**
 * The 6-digit authenticator code field: a numeric keypad on phones, the browser's one-time-code
 * autofill, left-to-right in Arabic too. The label and messages come from the caller's texts.
 */
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
