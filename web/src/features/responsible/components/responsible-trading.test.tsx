import { screen } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import type { LimitsAnswer } from '../api';
import { ResponsibleTrading } from './responsible-trading';

const none = { dailyLoss: null, dailyTurnover: null, openContracts: null, sessionReminderMinutes: null, excludedUntil: null };

beforeEach(() => vi.unstubAllGlobals());

test('a looser limit is saved as pending with the time it applies; the stricter one stays shown', async () => {
  let answer: LimitsAnswer = { current: { ...none, dailyLoss: '50' }, pending: null, pendingFrom: null, todayLoss: '20', todayTurnover: '20' };
  const api = mockApi({
    'GET /api/user/trading-limits': () => ({ data: answer }),
    'PUT /api/user/trading-limits': (body) => {
      answer = { ...answer, pending: body as LimitsAnswer['current'], pendingFrom: Date.now() + 86_400_000 };
      return { data: answer };
    },
  });
  const { user } = renderAt(<ResponsibleTrading />);
  expect(await screen.findByText(/50\.00 USDT · today 20\.00/)).toBeInTheDocument();
  await user.clear(screen.getByLabelText('Daily loss limit'));
  await user.type(screen.getByLabelText('Daily loss limit'), '500');
  await user.click(screen.getByRole('button', { name: 'Save limits' }));
  expect(await screen.findByText(/Your looser limits apply from/)).toBeInTheDocument();
  expect(screen.getByText(/50\.00 USDT · today 20\.00/)).toBeInTheDocument();
  expect(api.calls.find((c) => c.key === 'PUT /api/user/trading-limits')?.body).toEqual({ ...none, dailyLoss: '500' });
});

test('self-exclusion is confirmed before it is sent, and then shown with its end', async () => {
  let answer: LimitsAnswer = { current: none, pending: null, pendingFrom: null, todayLoss: '0', todayTurnover: '0' };
  const api = mockApi({
    'GET /api/user/trading-limits': () => ({ data: answer }),
    'PUT /api/user/trading-limits': (body) => ((answer = { ...answer, current: body as LimitsAnswer['current'] }), { data: answer }),
  });
  const { user } = renderAt(<ResponsibleTrading />);
  const date = new Date(Date.now() + 3 * 86_400_000);
  const text = `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
  await user.type(await screen.findByLabelText('Exclude me from trading until'), text);
  await user.click(screen.getByRole('button', { name: 'Save limits' }));
  expect(await screen.findByRole('dialog', { name: 'Exclude yourself from trading?' })).toHaveTextContent(/This cannot be undone or shortened/);
  expect(api.count('PUT /api/user/trading-limits')).toBe(0);
  await user.click(screen.getByRole('button', { name: 'Exclude me' }));
  expect(await screen.findByTestId('excluded-until')).toHaveTextContent('You have excluded yourself from trading until');
  expect(api.count('PUT /api/user/trading-limits')).toBe(1);
});
