import { afterEach, vi } from 'vitest';

import { API_TIMEOUT_MS, ApiError, createApiClient } from './api-client';
import { writeKey } from './storage';

function respond(status: number, body: unknown) {
  return new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

function setup(token: string | null = 'tok') {
  const onUnauthorized = vi.fn();
  const client = createApiClient({ getToken: () => token, onUnauthorized });
  return { client, onUnauthorized };
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

test('sends the bearer token and the stored language, and unwraps the envelope', async () => {
  writeKey('locale', 'de-DE');
  const fetch = vi.fn().mockResolvedValue(respond(200, { success: true, data: { a: 1 }, message: 'OK' }));
  vi.stubGlobal('fetch', fetch);
  const { client } = setup();
  await expect(client.get('/markets', { query: { category: 'crypto', empty: '' } })).resolves.toEqual({ a: 1 });
  const [url, init] = fetch.mock.calls[0]!;
  expect(url).toBe('/api/markets?category=crypto');
  expect(init.headers).toMatchObject({ Authorization: 'Bearer tok', language: 'de-DE' });
  expect(init.credentials).toBe('include');
});

test('a refusal carries the server message, its code and field', async () => {
  vi.stubGlobal(
    'fetch',
    vi.fn().mockResolvedValue(respond(400, { success: false, data: null, message: 'Username already exists', code: 'USERNAME_EXISTS', field: 'username' })),
  );
  const error = await setup().client.post('/login/register', {}).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ code: 'USERNAME_EXISTS', message: 'Username already exists', status: 400, field: 'username' });
});

test("a refusal's figures (the envelope's data) are kept on the error", async () => {
  vi.stubGlobal(
    'fetch',
    vi.fn().mockResolvedValue(respond(409, { success: false, data: { offer: '8.50' }, message: 'The offer changed to 8.50 USDT: nothing was sold', code: 'OFFER_CHANGED' })),
  );
  const error = await setup().client.post('/trade/contracts/1/sell', { offer: '8.78' }).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'OFFER_CHANGED', status: 409, data: { offer: '8.50' } });
  vi.stubGlobal('fetch', vi.fn().mockResolvedValue(respond(400, { success: false, data: null, message: 'Bad', code: 'VALIDATION' })));
  expect(await setup().client.get('/x').catch((e: unknown) => e)).toMatchObject({ data: null });
});

test('a 401 on a request with a token ends the session; without a token it does not', async () => {
  const expired = () => respond(401, { success: false, data: null, message: 'Login expired, please log in again', code: 'SESSION_EXPIRED' });
  vi.stubGlobal('fetch', vi.fn().mockImplementation(async () => expired()));
  const signedIn = setup('tok');
  await expect(signedIn.client.get('/wallet/balance')).rejects.toMatchObject({ status: 401 });
  expect(signedIn.onUnauthorized).toHaveBeenCalledTimes(1);

  const guest = setup(null);
  await expect(guest.client.post('/login/wallet-login', {})).rejects.toMatchObject({ status: 401 });
  expect(guest.onUnauthorized).not.toHaveBeenCalled();
});

test('answers without an envelope get the translated generic message of their status', async () => {
  vi.stubGlobal('fetch', vi.fn().mockResolvedValue(new Response('<html>bad gateway</html>', { status: 503 })));
  await expect(setup().client.get('/x')).rejects.toMatchObject({ code: 'HTTP_503', message: 'Service unavailable' });
  vi.stubGlobal('fetch', vi.fn().mockResolvedValue(new Response('oops', { status: 500 })));
  await expect(setup().client.get('/x')).rejects.toMatchObject({ message: 'Server error, please try again later' });
});

test('no answer at all is a network error', async () => {
  vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('Failed to fetch')));
  await expect(setup().client.get('/x')).rejects.toMatchObject({
    code: 'NETWORK',
    message: 'Network error: the server is not responding. Check your connection and try again.',
  });
});

test('a request still unanswered after 15 s is a timeout', async () => {
  vi.useFakeTimers();
  vi.stubGlobal(
    'fetch',
    vi.fn().mockImplementation(
      (_url: string, init: RequestInit) =>
        new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
    ),
  );
  const pending = setup().client.get('/slow').catch((e: unknown) => e);
  await vi.advanceTimersByTimeAsync(API_TIMEOUT_MS - 1);
  let settled = false;
  void pending.then(() => (settled = true));
  await Promise.resolve();
  expect(settled).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  await expect(pending).resolves.toMatchObject({ code: 'TIMEOUT', message: 'Request timeout' });
});
