import { act, screen } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';
import { mockXhr } from '@/testing/xhr';
import { type User, useSession } from '@/stores/session';

import { Profile } from './profile';

const base: User = { uid: 7, username: 'wallet_eth_2c7536e3', nickname: '', avatar: '', bio: '', phone: '', email: null, emailVerified: false, lastLogin: 1_795_132_800_000, joinTime: 1_795_000_000_000, inviteCode: 'ABCD2345', loginType: 'wallet', twoFactor: false, hasPassword: false, frozen: false };

beforeEach(() => {
  vi.unstubAllGlobals();
  useSession.setState({ token: 't', user: base });
});

test('nickname, bio and phone are saved; a phone with letters is refused first', async () => {
  const api = mockApi({ 'PUT /api/user/profile': (body) => ({ data: { ...base, ...(body as object) } }) });
  const { user } = renderAt(<Profile />);
  await user.type(screen.getByLabelText('Nickname'), 'Wally');
  await user.type(screen.getByLabelText('Bio'), 'Trades the open');
  await user.type(screen.getByLabelText('Phone'), 'call me');
  await user.click(screen.getByRole('button', { name: 'Save profile' }));
  expect(await screen.findByText('A phone number may contain digits, spaces and + - ( ) only')).toBeInTheDocument();
  expect(api.calls).toEqual([]);
  await user.clear(screen.getByLabelText('Phone'));
  await user.type(screen.getByLabelText('Phone'), '+1 (555) 010-0000');
  await user.click(screen.getByRole('button', { name: 'Save profile' }));
  await vi.waitFor(() => expect(useSession.getState().user?.nickname).toBe('Wally'));
  expect(api.calls[0]?.body).toEqual({ nickname: 'Wally', bio: 'Trades the open', phone: '+1 (555) 010-0000' });
});

test('the avatar goes up with its progress, and the new one is shown', async () => {
  mockApi({});
  const xhr = mockXhr();
  const { user } = renderAt(<Profile />);
  await user.upload(screen.getByLabelText('Change avatar'), new File(['png'], 'a.png', { type: 'image/png' }));
  expect(xhr.last!.url).toBe('/api/user/avatar');
  act(() => xhr.last!.progress(64, 100));
  expect(screen.getByText('Uploading… 64%')).toBeInTheDocument();
  act(() => xhr.last!.respond(200, { success: true, data: { ...base, avatar: '/api/uploads/a1.png' }, message: 'OK' }));
  await vi.waitFor(() => expect(useSession.getState().user?.avatar).toBe('/api/uploads/a1.png'));
});

test('a wallet user adds an e-mail: a code to the new address, then verified', async () => {
  const api = mockApi({
    'POST /api/user/email/send-code': () => ({ data: { resendAfter: 60 } }),
    'POST /api/user/email/verify': (body) => ({ data: { ...base, email: (body as { email: string }).email, emailVerified: true } }),
  });
  const { user } = renderAt(<Profile />);
  await user.type(screen.getByLabelText('Add an e-mail'), 'wally@example.com');
  await user.click(screen.getByRole('button', { name: 'Send code' }));
  expect(await screen.findByText('A 6-digit code was sent to wally@example.com.')).toBeInTheDocument();
  await user.type(screen.getByLabelText('Verification code'), '123456');
  await user.click(screen.getByRole('button', { name: 'Verify e-mail' }));
  expect(await screen.findByText('Verified')).toBeInTheDocument();
  expect(api.calls.map((c) => [c.key, c.body])).toEqual([
    ['POST /api/user/email/send-code', { email: 'wally@example.com' }],
    ['POST /api/user/email/verify', { code: '123456', email: 'wally@example.com' }],
  ]);
});
