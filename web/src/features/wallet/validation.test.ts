import { checkAddress, checkAmount, checkBank, checkReceipt, checkTotp, checkUid, withdrawalFee } from './validation';

test('amounts: plain decimals with at most two places, within min and max and the balance', () => {
  for (const bad of ['', 'abc', '0', '0.00', '-5', '1e3', '10.', '10.123', ' ', '1_000']) {
    expect(checkAmount(bad, '10', '50000')).toEqual({ key: 'wallet.validation.amountInvalid' });
  }
  expect(checkAmount('9.99', '10', '50000')).toEqual({ key: 'wallet.validation.amountRange', args: { min: '10', max: '50000' } });
  expect(checkAmount('50000.01', '10', '50000')?.key).toBe('wallet.validation.amountRange');
  expect(checkAmount('10', '10', '50000')).toBeUndefined();
  expect(checkAmount('100.5', '10', '50000', '100.49')).toEqual({ key: 'wallet.validation.insufficient' });
  expect(checkAmount('100.49', '10', '50000', '100.49')).toBeUndefined();
});

test('the withdrawal fee is amount × rate + fixed, rounded half-even to cents, as the engine does', () => {
  expect(withdrawalFee('100', '0.01', '1')).toEqual({ fee: '2.00', actual: '98.00' });
  // 0.125 rounds to the even 0.12; 0.135 to 0.14: never a float's 0.13499999.
  expect(withdrawalFee('12.5', '0.01', '0')).toEqual({ fee: '0.12', actual: '12.38' });
  expect(withdrawalFee('13.5', '0.01', '0')).toEqual({ fee: '0.14', actual: '13.36' });
  expect(withdrawalFee('0.1', '0.2', '0.1')?.fee).toBe('0.12');
  expect(withdrawalFee('1', '0.01', '1')).toEqual({ fee: '1.01', actual: '0.00' });
  expect(withdrawalFee('abc', '0.01', '1')).toBeNull();
  expect(withdrawalFee('', '0.01', '1')).toBeNull();
});

test('wallet addresses match their network', () => {
  expect(checkAddress('eth', '')).toBe('wallet.validation.addressRequired');
  expect(checkAddress('eth', '0x2c7536E3605D9C16a7a3D7b1898e529396a65c23')).toBeUndefined();
  expect(checkAddress('eth', '0x12')).toBe('wallet.validation.addressInvalid');
  expect(checkAddress('tron', 'TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz')).toBeUndefined();
  expect(checkAddress('tron', '0x2c7536E3605D9C16a7a3D7b1898e529396a65c23')).toBe('wallet.validation.addressInvalid');
  // Base58 has no 0, O, I or l.
  expect(checkAddress('tron', 'TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHa0')).toBe('wallet.validation.addressInvalid');
});

test('bank details, authenticator codes, UIDs and receipts', () => {
  expect(checkBank({ accountName: 'A', accountNumber: '1', bankName: ' ' })).toBe('wallet.validation.bankRequired');
  expect(checkBank({ accountName: 'A', accountNumber: '1', bankName: 'B' })).toBeUndefined();
  expect(checkTotp('12345')).toBe('wallet.validation.totpInvalid');
  expect(checkTotp('123456')).toBeUndefined();
  expect(checkUid('0')).toBe('wallet.validation.uidInvalid');
  expect(checkUid('12a')).toBe('wallet.validation.uidInvalid');
  expect(checkUid('4294967296')).toBe('wallet.validation.uidInvalid');
  expect(checkUid('42')).toBeUndefined();
  expect(checkReceipt(null)).toBe('wallet.validation.receiptRequired');
  expect(checkReceipt(new File(['x'], 'r.pdf', { type: 'application/pdf' }))).toBe('wallet.validation.receiptType');
  expect(checkReceipt(new File([new Uint8Array(5 * 1024 * 1024 + 1)], 'r.png', { type: 'image/png' }))).toBe('wallet.validation.receiptSize');
  expect(checkReceipt(new File(['x'], 'r.png', { type: 'image/png' }))).toBeUndefined();
});
