/**
 * A labelled input with its validation message: the label names the input, the message is
 * tied to it with aria-describedby and marks it aria-invalid, so a screen reader, a test and
 * a person find both the same way.
 */
import { type InputHTMLAttributes, type ReactNode, useId } from 'react';

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
