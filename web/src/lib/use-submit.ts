/**
 * A form's submit (or a dialog's confirming button), written once: the busy flag while the call
 * is out, one call at a time (a submit while one is out is ignored: nothing is queued, nothing
 * is ever sent again by itself), and the API client's failure caught and shown where
 * {@link placeError} puts it: on the field it is about, else for the whole form.
 *
 * The messages it holds are the form's too: a form may show its own checks' messages through
 * `show`, `setFieldError` and `setError`, and a call clears them all as it starts.
 */
import { useCallback, useRef, useState } from 'react';

import { type FieldMap, type PlacedError, placeError } from './field-errors';
import { i18n } from './i18n';

export interface SubmitOptions<F extends string> extends FieldMap<F> {
  /** The catalogue key of the message for a failure that is not the server's (no answer came). */
  fallback?: string;
  /** Codes that are a step of the flow rather than a failure: nothing is shown (`onError` hears them). */
  quiet?: readonly string[];
  /**
   * The form is handed on when the call succeeds (a dialog that closes, a sign-in that moves on):
   * it stays busy, so nothing is sent twice before it goes.
   */
  holdOnSuccess?: boolean;
  /** The messages shown stay while the call is out, until its answer replaces them. */
  keepMessages?: boolean;
  /** Hears every failure once it is shown (a step to go back to, a list to read again). */
  onError?(error: unknown, placed: PlacedError<F>): void;
}

export type FieldErrors<F extends string> = Partial<Record<F, string>>;

export interface Submit<F extends string> {
  /** True while the call is out. */
  busy: boolean;
  /** The message for the whole form, or null. */
  error: string | null;
  /** A message per field. */
  fieldErrors: FieldErrors<F>;
  /**
   * Runs the call (and what follows its success) unless one is out: clears the messages, sets
   * busy, and shows the failure in their place. Options add to (and override) the hook's. True
   * when it succeeded.
   */
  run(action: () => Promise<unknown>, options?: SubmitOptions<F>): Promise<boolean>;
  // The setters below never change (an effect may use them).
  /** Shows a message for the whole form (or none), keeping the fields' messages. */
  setError(message: string | null): void;
  /** Shows a message on one field, or clears it (its value changed), keeping the others. */
  setFieldError(field: F, message?: string): void;
  /** Shows these messages (the form's own checks) in place of every message shown. */
  show(fieldErrors: Partial<Record<F, string | undefined>>, error?: string | null): void;
  /** Clears every message. */
  clear(): void;
}

/** A message as the server sent it, or a catalogue key shown in the language of the moment. */
type Message = string | { key: string };

export function useSubmit<F extends string = never>(defaults: SubmitOptions<F> = {}): Submit<F> {
  const [busy, setBusy] = useState(false);
  // The guard itself: state would let two submits of one event both through.
  const out = useRef(false);
  const [error, setError] = useState<Message | null>(null);
  const [fields, setFields] = useState<Partial<Record<F, Message | undefined>>>({});
  const setFieldError = useCallback((field: F, message?: string) => setFields((shown) => ({ ...shown, [field]: message })), []);
  const show = useCallback((next: Partial<Record<F, string | undefined>>, message: string | null = null) => {
    setFields(next);
    setError(message);
  }, []);
  const clear = useCallback(() => show({}), [show]);

  const run = async (action: () => Promise<unknown>, options?: SubmitOptions<F>): Promise<boolean> => {
    if (out.current) return false;
    const o = { ...defaults, ...options };
    out.current = true;
    setBusy(true);
    if (!o.keepMessages) clear();
    let succeeded = false;
    try {
      await action();
      succeeded = true;
      if (o.keepMessages) clear();
    } catch (failure) {
      const placed = placeError(failure, o, o.fallback);
      if (placed.code !== null && o.quiet?.includes(placed.code)) {
        if (o.keepMessages) clear();
      } else {
        const message: Message = placed.key !== null ? { key: placed.key } : placed.message;
        setFields(placed.field !== null ? ({ [placed.field]: message } as Partial<Record<F, Message>>) : {});
        setError(placed.field !== null ? null : message);
      }
      o.onError?.(failure, placed);
    } finally {
      if (!succeeded || !o.holdOnSuccess) {
        out.current = false;
        setBusy(false);
      }
    }
    return succeeded;
  };

  const fieldErrors: FieldErrors<F> = {};
  for (const [field, message] of Object.entries(fields) as Array<[F, Message | undefined]>) {
    if (message !== undefined) fieldErrors[field] = text(message);
  }
  return {
    busy,
    error: error === null ? null : text(error),
    fieldErrors,
    run,
    setError,
    setFieldError,
    show,
    clear,
  };
}

function text(message: Message): string {
  return typeof message === 'string' ? message : i18n.t(message.key);
}
