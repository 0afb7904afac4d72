import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, vi } from 'vitest';

import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';
import { mockXhr } from '@/testing/xhr';

import { DepositDialog } from './deposit-dialog';

const info = {
  minAmount: '10',
  maxAmount: '1000000',
  accounts: [
    { method: 'bank_transfer', name: 'Trading Ltd', number: 'DE89370400440532013000', bank: 'Example Bank' },
    { method: 'usdt_trc20', name: 'Platform', number: 'TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz', bank: '' },
  ],
};

beforeEach(() => vi.unstubAllGlobals());

test('the limits and where to pay are shown before sending; a method not set up cannot be used', async () => {
  mockApi({ 'GET /api/wallet/deposit-info': () => ({ data: info }) });
  const { user } = renderAt(<DepositDialog open onClose={() => undefined} />);
  expect(await screen.findByText('Min 10.00 – max 1,000,000.00 USDT')).toBeInTheDocument();
  expect(screen.getByText('DE89370400440532013000')).toBeInTheDocument();
  expect(screen.getByText('Example Bank')).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Copy Account number' })).toBeInTheDocument();
  await user.click(screen.getByLabelText('USDT-TRC20'));
  expect(screen.getByText('TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz')).toBeInTheDocument();
  expect(screen.queryByLabelText('Your bank name')).not.toBeInTheDocument();
  await user.click(screen.getByLabelText('USDT-ERC20'));
  expect(screen.getByText(/This payment method is not available yet/)).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Submit deposit' })).toBeDisabled();
});

test('the receipt goes up with its progress, then the deposit is sent with its name', async () => {
  const api = mockApi({
    'GET /api/wallet/deposit-info': () => ({ data: info }),
    'POST /api/wallet/deposits': () => ({ data: { orderId: 12, status: 'pending' } }),
  });
  const xhr = mockXhr();
  const { user } = renderAt(<DepositDialog open onClose={() => undefined} />);
  const submit = await screen.findByRole('button', { name: 'Submit deposit' });
  await user.click(submit);
  expect(await screen.findByText('Please enter a valid amount')).toBeInTheDocument();
  expect(screen.getByText('Please enter the account name')).toBeInTheDocument();
  expect(screen.getByText('Please enter the account number')).toBeInTheDocument();
  expect(screen.getByText('Please enter the bank name')).toBeInTheDocument();
  expect(screen.getByText('Please upload the payment receipt')).toBeInTheDocument();

  await user.type(screen.getByLabelText('Amount'), '500');
  await user.type(screen.getByLabelText('Your account name'), 'Kate');
  await user.type(screen.getByLabelText('Your account number'), '123456');
  await user.type(screen.getByLabelText('Your bank name'), 'My Bank');
  await user.upload(screen.getByLabelText('Payment receipt (image)'), new File(['png'], 'r.png', { type: 'image/png' }));
  const request = xhr.last!;
  expect(request.url).toBe('/api/upload');
  act(() => request.progress(30, 100));
  expect(screen.getByText('Uploading… 30%')).toBeInTheDocument();
  expect(screen.getByLabelText('Upload progress')).toHaveAttribute('value', '30');
  await user.click(submit);
  expect(await screen.findByText('Please wait for the receipt to finish uploading')).toBeInTheDocument();
  act(() => request.respond(200, { success: true, data: { name: 'abc.png' }, message: 'OK' }));
  expect(await screen.findByText('Uploaded')).toBeInTheDocument();

  await user.click(submit);
  expect(await screen.findByText('Deposit order #12 submitted.')).toBeInTheDocument();
  expect(api.calls.find((c) => c.key === 'POST /api/wallet/deposits')?.body).toEqual({
    amount: '500',
    method: 'bank_transfer',
    accountName: 'Kate',
    accountNumber: '123456',
    bankName: 'My Bank',
    receipt: 'abc.png',
  });
});

test('a receipt that is not an image is refused before it is sent; a refused upload says why', async () => {
  mockApi({ 'GET /api/wallet/deposit-info': () => ({ data: info }) });
  const xhr = mockXhr();
  const { user } = renderAt(<DepositDialog open onClose={() => undefined} />);
  const input = await screen.findByLabelText('Payment receipt (image)');
  // Past the picker's accept filter, as a drag-and-drop or another browser could.
  await userEvent.setup({ applyAccept: false }).upload(input, new File(['%PDF'], 'r.pdf', { type: 'application/pdf' }));
  expect(await screen.findByText('The receipt must be a PNG, JPEG, GIF or WebP image')).toBeInTheDocument();
  expect(xhr.last).toBeNull();
  await user.upload(input, new File(['png'], 'r.png', { type: 'image/png' }));
  act(() => xhr.last!.respond(415, { success: false, data: null, message: 'Only PNG, JPEG, GIF or WebP images', code: 'UNSUPPORTED_MEDIA_TYPE' }));
  expect(await screen.findByText('Only PNG, JPEG, GIF or WebP images')).toBeInTheDocument();
});
