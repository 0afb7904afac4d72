/**
 * The spec's upload call: a multipart POST of one file in the field `file`, its progress
 * reported as a whole percentage (fetch cannot observe an upload, so this one request uses
 * XMLHttpRequest). Same URL, headers, envelope and errors as every other call of the client.
 * A module of its own so that only the screens that upload (profile, deposit) load it.
 */
import { type ApiClient, ApiError } from './api-client';
import { i18n, requestLanguage } from './i18n';

/** An upload may take longer than a call: up to a minute for the largest image. */
export const UPLOAD_TIMEOUT_MS = 60_000;

export interface UploadOptions {
  /** Called with 0-100 as the file goes up. */
  onProgress?(percent: number): void;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export function upload<T>(client: ApiClient, path: string, file: Blob, init: UploadOptions = {}): Promise<T> {
  const token = client.getToken();
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', client.url(path));
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('language', requestLanguage());
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.withCredentials = true;
    xhr.timeout = init.timeoutMs ?? UPLOAD_TIMEOUT_MS;
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) init.onProgress?.(Math.min(100, Math.floor((event.loaded / event.total) * 100)));
    };
    xhr.onload = () => {
      let payload: unknown;
      try {
        payload = JSON.parse(xhr.responseText) as unknown;
      } catch {
        payload = null;
      }
      try {
        const data = client.settle<T>(xhr.status, payload, token);
        init.onProgress?.(100);
        resolve(data);
      } catch (error) {
        reject(error);
      }
    };
    xhr.onerror = () => reject(new ApiError('NETWORK', i18n.t('errors.networkDetail'), 0));
    xhr.ontimeout = () => reject(new ApiError('TIMEOUT', i18n.t('errors.timeout'), 0));
    xhr.onabort = () => reject(new DOMException('aborted', 'AbortError'));
    init.signal?.addEventListener('abort', () => xhr.abort());
    const form = new FormData();
    form.append('file', file);
    xhr.send(form);
  });
}
