import { screen } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { mockApi } from '@/testing/api';
import { siteInfo } from '@/testing/fixtures';
import { renderAt } from '@/testing/render';
import { useSite } from '@/stores/site';

import { AuthPage } from './auth-page';

beforeEach(() => {
  vi.unstubAllGlobals();
  useSite.setState({ info: null });
});

async function openRegister(route = '/login/register') {
  const view = renderAt(<AuthPage tab="register" />, { path: '/login/register', route });
  await screen.findByLabelText('Username');
  return view;
}

const submit = () => screen.getByRole('button', { name: 'Register' }) as HTMLButtonElement;

test('every registration rule has its message, and nothing is sent until all pass', async () => {
  const api = mockApi({});
  const { user } = await openRegister();
  await user.click(submit());
  expect(await screen.findByText('Please enter your username')).toBeInTheDocument();
  expect(screen.getByText('Please enter your e-mail')).toBeInTheDocument();
  expect(screen.getByText('Please enter your password')).toBeInTheDocument();
  expect(screen.getByText('Please confirm your password')).toBeInTheDocument();
  expect(screen.getByText('Please agree to terms and conditions')).toBeInTheDocument();

  await user.type(screen.getByLabelText('Username'), 'ab');
  await user.type(screen.getByLabelText('E-mail'), 'not-an-email');
  await user.type(screen.getByLabelText('Password'), '12345');
  await user.type(screen.getByLabelText('Confirm password'), '123456');
  await user.type(screen.getByLabelText('Invitation code (optional)'), 'ABC');
  await user.click(submit());
  expect(await screen.findByText('Username must be 3-20 characters')).toBeInTheDocument();
  expect(screen.getByText('Please enter a valid e-mail address')).toBeInTheDocument();
  expect(screen.getByText('Password must be at least 6 characters')).toBeInTheDocument();
  expect(screen.getByText('Passwords do not match')).toBeInTheDocument();
  expect(screen.getByText('Invitation code must be 8 characters')).toBeInTheDocument();
  expect(screen.getByLabelText('Username')).toHaveAttribute('aria-invalid', 'true');

  await user.clear(screen.getByLabelText('Username'));
  await user.type(screen.getByLabelText('Username'), 'has space');
  await user.click(submit());
  expect(await screen.findByText('Username may contain only letters, digits and underscores')).toBeInTheDocument();
  expect(api.calls).toEqual([]);
});

test('the invite code comes from ?code=, the server refusals are shown on their fields, success goes to Login', async () => {
  let answer: { status: number; code: string; message: string } | null = { status: 400, code: 'INVALID_INVITE_CODE', message: 'Invalid invitation code' };
  const api = mockApi({
    'POST /api/login/register': () => answer ?? { data: { uid: 7, username: 'alice_1', inviteCode: 'ABCDEFGH' } },
  });
  const { user, router } = await openRegister('/login/register?code=ZZZZ2345');
  expect(screen.getByLabelText('Invitation code (optional)')).toHaveValue('ZZZZ2345');
  await user.type(screen.getByLabelText('Username'), 'alice_1');
  await user.type(screen.getByLabelText('E-mail'), 'alice@example.com');
  await user.type(screen.getByLabelText('Password'), 'secret1');
  await user.type(screen.getByLabelText('Confirm password'), 'secret1');
  await user.click(screen.getByLabelText('I agree to the terms and conditions'));
  await user.click(submit());
  expect(await screen.findByText('Invalid invitation code')).toBeInTheDocument();
  expect(api.calls[0]!.body).toMatchObject({ username: 'alice_1', inviteCode: 'ZZZZ2345', agreeTerms: true });

  answer = { status: 400, code: 'USERNAME_EXISTS', message: 'x' };
  await user.click(submit());
  expect(await screen.findByText('Username already exists')).toBeInTheDocument();

  answer = null;
  await user.click(submit());
  await vi.waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  expect(router.state.location.search).toBe('?code=ZZZZ2345');
});

test('when the site requires an invite code, an empty one is refused', async () => {
  useSite.setState({ info: siteInfo({ inviteCodeRequired: true }) });
  const { user } = await openRegister();
  await user.click(submit());
  expect(await screen.findByText('Please enter your invitation code')).toBeInTheDocument();
});
