/**
 * A stand-in for the server's HTTP API in component tests: `fetch` answers from handlers
 * keyed by "METHOD /api/path", in the server's envelope (a refusal with its `field` when the
 * handler names one); every request is recorded.
 */
import { vi } from 'vitest';

export type Handler = (
  body: unknown,
  url: URL,
) => { status?: number; data?: unknown; code?: string; message?: string; field?: string; file?: { text: string; name: string } } | Promise<never>;

export function mockApi(handlers: Record<string, Handler>) {
  const calls: Array<{ key: string; body: unknown; url: URL }> = [];
  const fetch = vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://localhost');
    const key = `${init?.method ?? 'GET'} ${url.pathname}`;
    const body = init?.body ? (JSON.parse(init.body as string) as unknown) : undefined;
    calls.push({ key, body, url });
    const handler = handlers[key];
    if (!handler) return new Response(JSON.stringify({ success: false, data: null, message: 'not found', code: 'NOT_FOUND' }), { status: 404 });
    const answer = await handler(body, url);
    if (answer.file) {
      const headers = { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${answer.file.name}"` };
      return new Response(answer.file.text, { status: 200, headers });
    }
    const status = answer.status ?? 200;
    const payload =
      status < 400
        ? { success: true, data: answer.data ?? {}, message: 'OK' }
        : { success: false, data: answer.data ?? null, message: answer.message ?? 'refused', code: answer.code ?? 'VALIDATION', ...(answer.field ? { field: answer.field } : {}) };
    return new Response(JSON.stringify(payload), { status, headers: { 'content-type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetch);
  return { fetch, calls, count: (key: string) => calls.filter((c) => c.key === key).length };
}
