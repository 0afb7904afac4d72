/**
 * The one HTTP client (spec §7): base `/api`, a bearer token when one exists, the stored
 * language in a `language` header, a 15 s timeout, the `{success, data, message}` envelope
 * unwrapped. Every failure becomes an {@link ApiError} with a stable `code` and a message in
 * the user's language: the server's own message when it sent one, else the spec's generic
 * texts (§8). A 401 on a request that carried a token ends the session.
 */
import { i18n, requestLanguage } from './i18n';

export const API_BASE = '/api';
export const API_TIMEOUT_MS = 15_000;

/** A failed call: `code` is the server's stable code or one of the client's own. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly field: string | undefined;
  /** The refusal's figures, for the codes that carry them (`OFFER_CHANGED`: `{offer}`), else null. */
  readonly data: Readonly<Record<string, unknown>> | null;

  constructor(code: string, message: string, status: number, field?: string, data?: Readonly<Record<string, unknown>> | null) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.field = field;
    this.data = data ?? null;
  }
}

/** The message for an HTTP status when the server sent none (spec §8, translated). */
export function statusMessage(status: number): string {
  const key: Record<number, string> = {
    400: 'errors.invalidParameters',
    401: 'errors.http401',
    403: 'errors.http403',
    404: 'errors.http404',
    405: 'errors.methodNotAllowed',
    408: 'errors.timeout',
    429: 'errors.tryLater',
    500: 'errors.http500',
    501: 'errors.notImplemented',
    502: 'errors.network',
    503: 'errors.unavailable',
    504: 'errors.networkTimeout',
    505: 'errors.httpVersion',
  };
  return i18n.t(key[status] ?? 'errors.operationFailed');
}

type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  timeoutMs?: number;
}

interface Envelope<T> {
  success: boolean;
  data: T;
  message?: string;
  code?: string;
  field?: string | null;
}

export interface ApiClientOptions {
  /** The bearer token to send, if any. */
  getToken(): string | null;
  /** Called when a request that carried a token is answered 401 (or 403 for admins). */
  onUnauthorized(status: number): void;
  /** Statuses that end the session (the user's client: 401; the admin's: 401 and 403). */
  endsSession?: readonly number[];
}

function url(path: string, query?: Query): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const qs = search.toString();
  return `${API_BASE}${path}${qs ? `?${qs}` : ''}`;
}

function isEnvelope(value: unknown): value is Envelope<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { success?: unknown }).success === 'boolean';
}

export function createApiClient(options: ApiClientOptions) {
  const endsSession = options.endsSession ?? [401];

  /** The answer to a call, or the failure to reach the server as an {@link ApiError}. */
  async function send(method: string, path: string, init: RequestOptions, accept: string): Promise<{ response: Response; token: string | null }> {
    const token = options.getToken();
    const headers: Record<string, string> = { Accept: accept, language: requestLanguage() };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, init.timeoutMs ?? API_TIMEOUT_MS);
    const abort = () => controller.abort();
    init.signal?.addEventListener('abort', abort);

    try {
      const response = await fetch(url(path, init.query), {
        method,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: controller.signal,
        credentials: 'include',
      });
      return { response, token };
    } catch (error) {
      if (timedOut) throw new ApiError('TIMEOUT', i18n.t('errors.timeout'), 0);
      if (init.signal?.aborted) throw error;
      throw new ApiError('NETWORK', i18n.t('errors.networkDetail'), 0);
    } finally {
      clearTimeout(timer);
      init.signal?.removeEventListener('abort', abort);
    }
  }

  async function request<T>(method: string, path: string, init: RequestOptions = {}): Promise<T> {
    const { response, token } = await send(method, path, init, 'application/json');
    let payload: unknown;
    try {
      payload = await response.json();
    } catch {
      payload = null;
    }
    return settle<T>(response.status, payload, token);
  }

  /** The envelope of an answer unwrapped, or the failure as an {@link ApiError}. */
  function settle<T>(status: number, payload: unknown, token: string | null): T {
    const ok = status >= 200 && status < 300;
    if (token && endsSession.includes(status)) {
      options.onUnauthorized(status);
      const message = isEnvelope(payload) && payload.message ? payload.message : statusMessage(401);
      throw new ApiError(isEnvelope(payload) ? (payload.code ?? 'UNAUTHORIZED') : 'UNAUTHORIZED', message, status);
    }
    if (isEnvelope(payload)) {
      if (payload.success && ok) return payload.data as T;
      const message = payload.message || statusMessage(status);
      const data = typeof payload.data === 'object' && payload.data !== null ? (payload.data as Record<string, unknown>) : null;
      throw new ApiError(payload.code ?? 'FAILED', message, status, payload.field ?? undefined, data);
    }
    throw new ApiError(ok ? 'BAD_RESPONSE' : `HTTP_${status}`, statusMessage(status), status);
  }

  /**
   * A file the server writes (an export): its bytes and the name it suggests. The timeout
   * covers the answer's start, not a long file's transfer; a refusal comes back in the
   * envelope like any call's.
   */
  async function download(path: string, init: RequestOptions = {}): Promise<{ blob: Blob; filename: string }> {
    const { response, token } = await send('GET', path, init, 'text/csv, application/json');
    if (!response.ok) {
      let payload: unknown;
      try {
        payload = await response.json();
      } catch {
        payload = null;
      }
      return settle(response.status, payload, token);
    }
    const disposition = response.headers.get('content-disposition') ?? '';
    const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'export.csv';
    return { blob: await response.blob(), filename };
  }

  return {
    get: <T>(path: string, init?: RequestOptions) => request<T>('GET', path, init),
    download,
    post: <T>(path: string, body?: unknown, init?: RequestOptions) => request<T>('POST', path, { ...init, body: body ?? {} }),
    put: <T>(path: string, body?: unknown, init?: RequestOptions) => request<T>('PUT', path, { ...init, body: body ?? {} }),
    delete: <T>(path: string, init?: RequestOptions) => request<T>('DELETE', path, init),
    /** For lib/upload.ts: the same URL, token and envelope rules as every call. */
    url,
    getToken: () => options.getToken(),
    settle,
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** A user-facing message for any error thrown by a call. */
export function errorMessage(error: unknown, fallbackKey = 'errors.operationFailed'): string {
  if (error instanceof ApiError) return error.message;
  return i18n.t(fallbackKey);
}

/** A page of rows, as every list call answers. */
export interface Page<T> {
  items: T[];
  total: number;
}
