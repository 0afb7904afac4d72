import { screen } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';
import { useToasts } from '@/stores/toast';

import { Invitations } from './invitations';

beforeEach(() => {
  vi.unstubAllGlobals();
  useToasts.setState({ toasts: [] });
});

const rewardRates = ['0.005', '0.003', '0.002'];
// No public origin set by the operator: the server answers `link: null`.
const answers = {
  'GET /api/invite': () => ({ data: { code: 'ABCD2345', link: null, rewardRates } }),
  'GET /api/invite/team': () => ({
    data: [
      { generation: 1, count: 3, certified: 2, notCertified: 1, members: [] },
      { generation: 2, count: 1, certified: 0, notCertified: 1, members: [] },
      { generation: 3, count: 0, certified: 0, notCertified: 0, members: [] },
    ],
  }),
  'GET /api/wallet/bills': () => ({ data: { items: [], total: 4, totalIn: '12.5', totalOut: '0', byType: [] } }),
};

test('without a public origin set on the server, the link on this origin, the code, a QR of the link, the team by generation, the rules and the rewards', async () => {
  mockApi(answers);
  renderAt(<Invitations />);
  expect(await screen.findByTestId('invite-code')).toHaveTextContent('ABCD2345');
  const link = `${window.location.origin}/login/register?code=ABCD2345`;
  expect(screen.getByTestId('invite-link')).toHaveTextContent(link);
  // The QR code encodes the link (qrcode.react draws it as one SVG path).
  const qr = screen.getByRole('img', { name: 'QR code of your invitation link' });
  expect(qr.querySelector('path')).not.toBeNull();
  expect(screen.getByTestId('generation-1')).toHaveTextContent(/Generation 1\s*3\s*2\s*1/);
  expect(screen.getByTestId('generation-2')).toHaveTextContent(/Generation 2\s*1\s*0\s*1/);
  expect(screen.getByText('Generation 1: 0.5% of each settled real stake')).toBeInTheDocument();
  expect(screen.getByText('Generation 3: 0.2% of each settled real stake')).toBeInTheDocument();
  expect(screen.getByTestId('invite-earned')).toHaveTextContent('12.50 USDT');
});

test('a public origin the operator set wins: the link, its QR code and its copy are the server\'s', async () => {
  const serverLink = 'https://trade.example/login/register?code=ABCD2345';
  mockApi({ ...answers, 'GET /api/invite': () => ({ data: { code: 'ABCD2345', link: serverLink, rewardRates } }) });
  const { user } = renderAt(<Invitations />);
  expect(await screen.findByTestId('invite-link')).toHaveTextContent(serverLink);
  expect(screen.queryByText(`${window.location.origin}/login/register?code=ABCD2345`)).not.toBeInTheDocument();
  expect(screen.getByRole('img', { name: 'QR code of your invitation link' }).querySelector('path')).not.toBeNull();
  const writeText = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue(undefined);
  await user.click(screen.getByRole('button', { name: 'Copy Invitation link' }));
  expect(writeText.mock.calls).toEqual([[serverLink]]);
});

test('copy buttons copy the code and the link, and say when the browser refuses', async () => {
  mockApi(answers);
  const { user } = renderAt(<Invitations />);
  await screen.findByTestId('invite-code');
  const writeText = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue(undefined);
  await user.click(screen.getByRole('button', { name: 'Copy Invitation code' }));
  await user.click(screen.getByRole('button', { name: 'Copy Invitation link' }));
  expect(writeText.mock.calls).toEqual([['ABCD2345'], [`${window.location.origin}/login/register?code=ABCD2345`]]);
  writeText.mockRejectedValue(new Error('denied'));
  await user.click(screen.getByRole('button', { name: 'Copy Invitation link' }));
  expect(useToasts.getState().toasts.at(-1)?.text).toBe('Failed to copy');
});

test('a failed load says so and offers a retry', async () => {
  mockApi({ ...answers, 'GET /api/invite/team': () => ({ status: 500, code: 'INTERNAL', message: 'Server error' }) });
  renderAt(<Invitations />);
  expect(await screen.findByText('Server error')).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
});
