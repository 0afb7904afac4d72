import { act, screen, within } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { useToasts } from '@/stores/toast';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { SellAction } from './sell-contract';

const SELL = 'POST /api/trade/contracts/123/sell';

beforeEach(() => {
  vi.unstubAllGlobals();
  useToasts.setState({ toasts: [] });
});

function action(offer: { offer: string | null; reason: string | null } | undefined, onLost = vi.fn()) {
  return { ...renderAt(<SellAction contractId={123} offer={offer} onLost={onLost} />), onLost };
}

test('an offer is a Sell button with the amount; no offer is its reason in words', () => {
  const { rerender } = action({ offer: '8.78', reason: null });
  const button = screen.getByRole('button', { name: 'Sell contract 123 for 8.78 USDT' });
  expect(button).toHaveTextContent('Sell 8.78');
  rerender(<SellAction contractId={123} offer={{ offer: null, reason: 'near_expiry' }} />);
  expect(screen.queryByRole('button', { name: /Sell contract/ })).toBeNull();
  expect(screen.getByText('No offer in the last seconds')).toBeInTheDocument();
  rerender(<SellAction contractId={123} offer={{ offer: null, reason: 'something_new' }} />);
  expect(screen.getByText('Early close is not available')).toBeInTheDocument();
});

test('the confirm step shows what the trader receives; confirming sells at that offer once', async () => {
  let release: () => void = () => undefined;
  const api = mockApi({
    [SELL]: () => new Promise((done) => (release = () => done({ data: { contractId: 123, credited: '8.91' } }))) as never,
  });
  const { user } = action({ offer: '8.78', reason: null });
  await user.click(screen.getByRole('button', { name: 'Sell contract 123 for 8.78 USDT' }));
  const dialog = screen.getByRole('dialog', { name: 'Sell before expiry' });
  expect(within(dialog).getByText('8.78 USDT')).toBeInTheDocument();
  expect(within(dialog).getByText('#123')).toBeInTheDocument();
  // The published formula is one click away, in the trader's language.
  expect(within(dialog).getByText('How the offer is computed')).toBeInTheDocument();
  expect(within(dialog).getByText(/^Offer = ⌊W × P × \(1 − spread\)⌋/)).toBeInTheDocument();

  await user.click(within(dialog).getByRole('button', { name: 'Sell for 8.78 USDT' }));
  const busy = within(dialog).getByRole('button', { name: 'Selling…' });
  expect(busy).toBeDisabled();
  await user.click(busy);
  await act(async () => release());
  await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(api.count(SELL)).toBe(1);
  expect(api.calls.find((c) => c.key === SELL)!.body).toEqual({ offer: '8.78' });
  // What the sale paid (at least the offer confirmed).
  expect(useToasts.getState().toasts.map((t) => [t.kind, t.text])).toEqual([['success', 'Sold for 8.91 USDT']]);
});

test('a changed offer is shown and waits for another confirmation: nothing is sent again by itself', async () => {
  let offers = 0;
  const api = mockApi({
    [SELL]: (body) => {
      offers += 1;
      return (body as { offer: string }).offer === '8.78'
        ? { status: 409, code: 'OFFER_CHANGED', message: 'The offer changed to 8.50 USDT: nothing was sold', data: { offer: '8.50' } }
        : { data: { contractId: 123, credited: '8.50' } };
    },
  });
  const { user } = action({ offer: '8.78', reason: null });
  await user.click(screen.getByRole('button', { name: 'Sell contract 123 for 8.78 USDT' }));
  const dialog = screen.getByRole('dialog');
  await user.click(within(dialog).getByRole('button', { name: 'Sell for 8.78 USDT' }));

  expect(await within(dialog).findByRole('alert')).toHaveTextContent('The offer changed to 8.50 USDT: nothing was sold. Confirm again to sell at the new offer.');
  expect(within(dialog).getByText('8.50 USDT')).toBeInTheDocument();
  expect(within(dialog).queryByText('8.78 USDT')).toBeNull();
  // Some time passes: still one request, the dialog waits for the trader.
  await act(() => new Promise((done) => setTimeout(done, 50)));
  expect(api.count(SELL)).toBe(1);
  expect(useToasts.getState().toasts).toEqual([]);

  await user.click(within(dialog).getByRole('button', { name: 'Sell for 8.50 USDT' }));
  await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(offers).toBe(2);
  expect(api.calls.filter((c) => c.key === SELL).map((c) => c.body)).toEqual([{ offer: '8.78' }, { offer: '8.50' }]);
  expect(useToasts.getState().toasts.map((t) => t.text)).toEqual(['Sold for 8.50 USDT']);
});

test("another refusal shows the server's message and offers no confirmation of a stale offer", async () => {
  const api = mockApi({
    [SELL]: () => ({ status: 409, code: 'SALE_UNAVAILABLE', message: 'This contract cannot be sold now', data: { reason: 'near_expiry' } }),
  });
  const { user } = action({ offer: '8.78', reason: null });
  await user.click(screen.getByRole('button', { name: 'Sell contract 123 for 8.78 USDT' }));
  const dialog = screen.getByRole('dialog');
  await user.click(within(dialog).getByRole('button', { name: 'Sell for 8.78 USDT' }));
  expect(await within(dialog).findByRole('alert')).toHaveTextContent('This contract cannot be sold now');
  expect(within(dialog).queryByRole('button', { name: /Sell for/ })).toBeNull();
  await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
  expect(screen.queryByRole('dialog')).toBeNull();
  expect(api.count(SELL)).toBe(1);
});

test('a sale whose answer was lost is never retried: the contract is read again instead', async () => {
  const api = mockApi({});
  api.fetch.mockImplementation(async (input: string, init?: RequestInit) => {
    api.calls.push({ key: `${init?.method} ${new URL(input, 'http://x').pathname}`, body: JSON.parse(init!.body as string), url: new URL(input, 'http://x') });
    throw new TypeError('Failed to fetch');
  });
  const { user, onLost } = action({ offer: '8.78', reason: null });
  await user.click(screen.getByRole('button', { name: 'Sell contract 123 for 8.78 USDT' }));
  const dialog = screen.getByRole('dialog');
  await user.click(within(dialog).getByRole('button', { name: 'Sell for 8.78 USDT' }));
  expect(await within(dialog).findByRole('alert')).toHaveTextContent('It was not sent again');
  expect(onLost).toHaveBeenCalledTimes(1);
  expect(within(dialog).queryByRole('button', { name: /Sell for/ })).toBeNull();
  expect(api.count(SELL)).toBe(1);
});
