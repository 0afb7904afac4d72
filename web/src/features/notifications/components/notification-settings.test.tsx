import { screen } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { usePreferences } from '../stores/preferences';
import { NotificationSettings } from './notification-settings';

beforeEach(() => {
  vi.unstubAllGlobals();
  usePreferences.getState().reset();
});

test('six switches read from and saved to the server', async () => {
  const stored = { email: true, priceAlerts: false, trade: true, system: true, marketing: false, newsletter: true };
  const api = mockApi({
    'GET /api/user/notification-settings': () => ({ data: stored }),
    'PUT /api/user/notification-settings': (body) => ({ data: body }),
  });
  const { user } = renderAt(<NotificationSettings />);
  const trade = await screen.findByRole('switch', { name: 'Trade' });
  expect(trade).toHaveAttribute('aria-checked', 'true');
  expect(screen.getByRole('switch', { name: 'Price alerts' })).toHaveAttribute('aria-checked', 'false');
  expect(screen.getAllByRole('switch')).toHaveLength(6);
  await user.click(trade);
  await vi.waitFor(() => expect(trade).toHaveAttribute('aria-checked', 'false'));
  expect(api.calls.find((c) => c.key === 'PUT /api/user/notification-settings')?.body).toEqual({ ...stored, trade: false });
  expect(usePreferences.getState().settings.trade).toBe(false);
});
