import { screen } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { TransferDialog } from './transfer-dialog';

const info = { feeRate: '0.01', feeFixed: '1', minAmount: '10', maxAmount: '50000', available: '400', addresses: [], requiresTwoFactor: false, blockedUntil: null };

beforeEach(() => vi.unstubAllGlobals());

test('the recipient is named before anything moves, and the transfer is sent once on confirmation', async () => {
  const api = mockApi({
    'GET /api/wallet/withdraw-info': () => ({ data: info }),
    'GET /api/wallet/recipient/42': () => ({ data: { uid: 42, name: 'liam' } }),
    'GET /api/wallet/recipient/41': () => ({ status: 404, code: 'USER_NOT_FOUND', message: 'User not found' }),
    'POST /api/wallet/transfers': () => ({ data: {} }),
  });
  const { user } = renderAt(<TransferDialog open onClose={() => undefined} />);
  await user.click(await screen.findByRole('button', { name: 'Next' }));
  expect(await screen.findByText('Please enter a valid UID')).toBeInTheDocument();
  expect(screen.getByText('Please enter a valid amount')).toBeInTheDocument();

  await user.type(screen.getByLabelText('Recipient UID'), '41');
  await user.type(screen.getByLabelText('Amount'), '25.5');
  await user.click(screen.getByRole('button', { name: 'Next' }));
  expect(await screen.findByText('No user has this UID')).toBeInTheDocument();

  await user.clear(screen.getByLabelText('Recipient UID'));
  await user.type(screen.getByLabelText('Recipient UID'), '42');
  await user.click(screen.getByRole('button', { name: 'Next' }));
  expect(await screen.findByText('Send 25.50 USDT to liam (UID 42)? A transfer cannot be undone.')).toBeInTheDocument();
  expect(api.count('POST /api/wallet/transfers')).toBe(0);
  await user.click(screen.getByRole('button', { name: 'Send' }));
  expect(await screen.findByText('25.50 USDT sent to liam (UID 42).')).toBeInTheDocument();
  expect(api.calls.filter((c) => c.key === 'POST /api/wallet/transfers').map((c) => c.body)).toEqual([{ toUid: 42, amount: '25.5' }]);
});

test('within 24 h of a password change the transfer is blocked, with its end shown', async () => {
  mockApi({ 'GET /api/wallet/withdraw-info': () => ({ data: { ...info, blockedUntil: Date.now() + 60_000 } }) });
  renderAt(<TransferDialog open onClose={() => undefined} />);
  expect(await screen.findByRole('alert')).toHaveTextContent(/Transfers are not allowed within 24 hours after the login password is changed\. You can transfer again from/);
  expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
});

test("two-factor actions paused: the server's 429 message is shown, nothing crashes, and the form stays usable", async () => {
  const locked = 'Too many wrong authenticator codes: two-factor actions on this account are paused until 2026-11-25 20:15 UTC';
  const api = mockApi({
    'GET /api/wallet/withdraw-info': () => ({ data: { ...info, requiresTwoFactor: true } }),
    'GET /api/wallet/recipient/42': () => ({ data: { uid: 42, name: 'liam' } }),
    'POST /api/wallet/transfers': () => ({ status: 429, code: 'TWO_FACTOR_LOCKED', message: locked }),
  });
  const { user } = renderAt(<TransferDialog open onClose={() => undefined} />);
  await user.type(await screen.findByLabelText('Recipient UID'), '42');
  await user.type(screen.getByLabelText('Amount'), '25');
  await user.type(screen.getByLabelText('Authenticator code'), '123456');
  await user.click(screen.getByRole('button', { name: 'Next' }));
  await user.click(await screen.findByRole('button', { name: 'Send' }));
  expect(await screen.findByRole('alert')).toHaveTextContent(locked);
  // Back on the form, as typed, to try again once the pause is over.
  expect(screen.getByLabelText('Recipient UID')).toHaveValue('42');
  expect(screen.getByRole('button', { name: 'Next' })).toBeEnabled();
  expect(api.calls.filter((c) => c.key === 'POST /api/wallet/transfers').map((c) => c.body)).toEqual([{ toUid: 42, amount: '25', totpCode: '123456' }]);
});
