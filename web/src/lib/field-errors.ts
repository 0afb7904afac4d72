/**
 * Where a refusal of the server belongs on a form, decided in one place. The server's error
 * envelope carries a stable `code`, a message in the user's language and sometimes the `field`
 * (its name in the request) the refusal is about; the API client keeps all three on its
 * {@link ApiError}. A form says which of the server's fields and codes are about which of its own
 * fields; every other refusal is for the whole form.
 */
import { ApiError, errorMessage } from './api-client';

export interface FieldMap<F extends string> {
  /**
   * The server's `field`s that are the form's fields: a list when the names are the same, else
   * the server's name to the form's field (`newPassword` -> `next`).
   */
  fields?: readonly F[] | Readonly<Record<string, F>>;
  /** Codes about one field whatever `field` says (WRONG_PASSWORD: the password). Checked first. */
  codes?: Readonly<Record<string, F>>;
  /** The field every other failure is about (a form of one field); else the whole form. */
  rest?: F;
  /** Codes whose message is the catalogue's own (a key) rather than the server's text. */
  texts?: Readonly<Record<string, string>>;
}

export interface PlacedError<F extends string> {
  /** The form's field the refusal is about, or null for the whole form. */
  field: F | null;
  /** The server's message, or the fallback's text for a failure that is not the server's. */
  message: string;
  /** The catalogue key to show instead of `message`, when the map names one for the code. */
  key: string | null;
  /** The server's code, or null for a failure that is not the server's. */
  code: string | null;
}

/** The field a failure is about (by its code, else by the server's `field`) and its message. */
export function placeError<F extends string>(error: unknown, map: FieldMap<F> = {}, fallbackKey?: string): PlacedError<F> {
  const message = errorMessage(error, fallbackKey);
  if (!(error instanceof ApiError)) return { field: map.rest ?? null, message, key: null, code: null };
  const key = map.texts && Object.hasOwn(map.texts, error.code) ? map.texts[error.code]! : null;
  return { field: fieldOf(error, map), message, key, code: error.code };
}

function fieldOf<F extends string>(error: ApiError, { fields, codes, rest }: FieldMap<F>): F | null {
  if (codes && Object.hasOwn(codes, error.code)) return codes[error.code]!;
  const named = error.field;
  if (named !== undefined && fields) {
    if (isList(fields)) {
      if (fields.includes(named as F)) return named as F;
    } else if (Object.hasOwn(fields, named)) {
      return fields[named]!;
    }
  }
  return rest ?? null;
}

function isList<F extends string>(fields: readonly F[] | Readonly<Record<string, F>>): fields is readonly F[] {
  return Array.isArray(fields);
}
