import { screen, within } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import type { WithdrawInfo } from '../api';
import { WithdrawDialog } from './withdraw-dialog';

const ADDRESS = '0x2c7536E3605D9C16a7a3D7b1898e529396a65c23';
const info = (patch: Partial<WithdrawInfo> = {}): WithdrawInfo => ({
  feeRate: '0.01',
  feeFixed: '1',
  minAmount: '10',
  maxAmount: '50000',
  available: '400',
  addresses: [{ position: 0, label: 'main', chain: 'eth', address: ADDRESS, isDefault: true }],
  requiresTwoFactor: false,
  blockedUntil: null,
  ...patch,
});

beforeEach(() => vi.unstubAllGlobals());

async function open(withdrawInfo: WithdrawInfo, handlers = {}) {
  const api = mockApi({ 'GET /api/wallet/withdraw-info': () => ({ data: withdrawInfo }), ...handlers });
  const view = renderAt(<WithdrawDialog open onClose={() => undefined} />);
  await screen.findByLabelText('Amount');
  return { api, ...view };
}

test('the fee and the amount received follow the typing, computed exactly', async () => {
  const { user } = await open(info());
  expect(screen.getByTestId('withdraw-fee')).toHaveTextContent('--');
  await user.type(screen.getByLabelText('Amount'), '12.5');
  // 12.5 × 1 % = 0.125 → 0.12 (half-even), + 1 fixed.
  expect(screen.getByTestId('withdraw-fee')).toHaveTextContent('1.12 USDT');
  expect(screen.getByTestId('withdraw-actual')).toHaveTextContent('11.38 USDT');
  await user.click(screen.getByRole('button', { name: 'All' }));
  expect(screen.getByLabelText('Amount')).toHaveValue('400');
  expect(screen.getByTestId('withdraw-actual')).toHaveTextContent('395.00 USDT');
});

test('every rule has its message and nothing is sent until they pass; then the order is sent once', async () => {
  const { api, user } = await open(info(), { 'POST /api/wallet/withdrawals': () => ({ data: { orderId: 7, status: 'pending' } }) });
  const submit = () => user.click(screen.getByRole('button', { name: 'Submit withdrawal' }));
  await submit();
  expect(await screen.findByText('Please enter a valid amount')).toBeInTheDocument();
  await user.type(screen.getByLabelText('Amount'), '5');
  await submit();
  expect(await screen.findByText('Amount must be between 10 and 50000')).toBeInTheDocument();
  await user.clear(screen.getByLabelText('Amount'));
  await user.type(screen.getByLabelText('Amount'), '401');
  await submit();
  expect(await screen.findByText('Insufficient balance')).toBeInTheDocument();
  await user.click(screen.getByRole('tab', { name: 'Bank card' }));
  await user.clear(screen.getByLabelText('Amount'));
  await user.type(screen.getByLabelText('Amount'), '100');
  await user.type(screen.getByLabelText('Cardholder name'), 'Kate');
  await submit();
  expect(await screen.findByText('Please fill in all bank information')).toBeInTheDocument();
  expect(api.count('POST /api/wallet/withdrawals')).toBe(0);

  await user.click(screen.getByRole('tab', { name: 'Wallet' }));
  await submit();
  expect(await screen.findByText('Withdrawal order #7 submitted.')).toBeInTheDocument();
  expect(api.calls.filter((c) => c.key === 'POST /api/wallet/withdrawals').map((c) => c.body)).toEqual([{ method: 'wallet', amount: '100', addressPosition: 0 }]);
});

test('a new address is checked for its network, saved, and chosen', async () => {
  const { api, user } = await open(info({ addresses: [] }), {
    'POST /api/wallet/addresses': (body: unknown) => {
      const { chain, address } = body as { chain: string; address: string };
      return { data: [{ position: 0, label: '', chain, address, isDefault: true }] };
    },
  });
  await user.type(screen.getByLabelText('Wallet address'), '0x12');
  await user.click(screen.getByRole('button', { name: 'Save address' }));
  expect(await screen.findByText('Please enter a valid wallet address')).toBeInTheDocument();
  await user.selectOptions(screen.getByLabelText('Network'), 'eth');
  await user.clear(screen.getByLabelText('Wallet address'));
  await user.type(screen.getByLabelText('Wallet address'), ADDRESS);
  await user.click(screen.getByRole('button', { name: 'Save address' }));
  const saved = await screen.findByRole('radio');
  expect(saved).toBeChecked();
  expect(within(saved.closest('li')!).getByText('Default')).toBeInTheDocument();
  expect(api.calls.find((c) => c.key === 'POST /api/wallet/addresses')?.body).toEqual({ label: '', chain: 'eth', address: ADDRESS, isDefault: true });
});

test('the 24 h block after a password change is shown with its end, and the 2FA code is asked for', async () => {
  const until = Date.now() + 3_600_000;
  await open(info({ blockedUntil: until, requiresTwoFactor: true }));
  expect(screen.getByRole('alert')).toHaveTextContent(/Withdrawal is not allowed within 24 hours after the login password is changed\. You can withdraw again from/);
  expect(screen.getByRole('button', { name: 'Submit withdrawal' })).toBeDisabled();
  expect(screen.getByLabelText('Authenticator code')).toBeInTheDocument();
  expect(screen.getByText('Withdrawal is not allowed within 24 hours after the login password is changed.')).toBeInTheDocument();
});

test('a refusal from the server is shown on its field', async () => {
  const { user } = await open(info({ requiresTwoFactor: true }), {
    'POST /api/wallet/withdrawals': () => ({ status: 400, code: 'INVALID_TOTP', message: 'The authenticator code is wrong' }),
  });
  await user.type(screen.getByLabelText('Amount'), '100');
  await user.type(screen.getByLabelText('Authenticator code'), '12345');
  await user.click(screen.getByRole('button', { name: 'Submit withdrawal' }));
  expect(await screen.findByText('Enter the 6-digit code from your authenticator app')).toBeInTheDocument();
  await user.type(screen.getByLabelText('Authenticator code'), '6');
  await user.click(screen.getByRole('button', { name: 'Submit withdrawal' }));
  expect(await screen.findByText('The authenticator code is wrong')).toBeInTheDocument();
});

test("two-factor actions paused: the server's 429 message is shown, nothing crashes, and the form stays usable", async () => {
  const locked = 'Too many wrong authenticator codes: two-factor actions on this account are paused until 2026-11-25 20:15 UTC';
  const { api, user } = await open(info({ requiresTwoFactor: true }), {
    'POST /api/wallet/withdrawals': () => ({ status: 429, code: 'TWO_FACTOR_LOCKED', message: locked }),
  });
  await user.type(screen.getByLabelText('Amount'), '100');
  await user.type(screen.getByLabelText('Authenticator code'), '123456');
  await user.click(screen.getByRole('button', { name: 'Submit withdrawal' }));
  expect(await screen.findByRole('alert')).toHaveTextContent(locked);
  expect(screen.getByLabelText('Amount')).toHaveValue('100');
  expect(screen.getByRole('button', { name: 'Submit withdrawal' })).toBeEnabled();
  expect(api.count('POST /api/wallet/withdrawals')).toBe(1);
});
