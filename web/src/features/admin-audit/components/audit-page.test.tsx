import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';

import { useAdminSession } from '@/stores/admin-session';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { AuditPage, readDraft } from './audit-page';

const rows = [
  { index: 9, admin: 1, action: 'create_admin', detail: 'username=viewer1 role=Viewer', refused: 'USERNAME_EXISTS', time: 1_700_000_100_000 },
  { index: 8, admin: 1, action: 'set_rule', detail: 'duration=120s payout=0.8', refused: null, time: 1_700_000_000_000 },
];

describe('audit log', () => {
  beforeEach(() => useAdminSession.getState().signIn('t', { id: 1, username: 'root', role: 'super', permissions: ['audit:read'] }));

  it('lists actions with their result and filters by admin, action and days', async () => {
    const api = mockApi({ 'GET /api/admin/audit': () => ({ data: { items: rows, total: 2 } }) });
    const { user } = renderAt(<AuditPage />);
    const table = await screen.findByRole('table');
    expect(within(table).getByText('Create admin')).toBeInTheDocument();
    expect(within(table).getByText('Refused: USERNAME_EXISTS')).toBeInTheDocument();
    expect(within(table).getByText('Set game rule')).toBeInTheDocument();

    await user.type(screen.getByLabelText('Admin ID'), '1');
    await user.selectOptions(screen.getByLabelText('Action'), 'set_rule');
    await user.type(screen.getByLabelText('From'), '2026-11-01');
    await user.type(screen.getByLabelText('To'), '2026-11-02');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(api.calls.at(-1)?.url.searchParams.get('action')).toBe('set_rule'));
    const query = api.calls.at(-1)!.url.searchParams;
    expect(query.get('admin')).toBe('1');
    expect(Number(query.get('end')) - Number(query.get('start'))).toBe(2 * 86_400_000 - 1);
  });

  it('names the early-close terms and the two-factor pause, in the list and the filter', async () => {
    const more = [
      { index: 11, admin: 2, action: 'two_factor_locked', detail: 'failures=5 until=1700000900000', refused: null, time: 1_700_000_300_000 },
      { index: 10, admin: 1, action: 'set_sale_terms', detail: 'enabled=true cutoff=5s spread=0.05 durations=0 products=0', refused: null, time: 1_700_000_200_000 },
    ];
    const api = mockApi({ 'GET /api/admin/audit': () => ({ data: { items: more, total: 2 } }) });
    const { user } = renderAt(<AuditPage />);
    const table = await screen.findByRole('table');
    expect(within(table).getByText('Set early-close terms')).toBeInTheDocument();
    expect(within(table).getByText('Two-factor paused')).toBeInTheDocument();
    const action = screen.getByLabelText('Action');
    expect(within(action).getByRole('option', { name: 'Set early-close terms' })).toHaveValue('set_sale_terms');
    expect(within(action).getByRole('option', { name: 'Two-factor paused' })).toHaveValue('two_factor_locked');
    await user.selectOptions(action, 'set_sale_terms');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(api.calls.at(-1)?.url.searchParams.get('action')).toBe('set_sale_terms'));
  });

  it('refuses a bad filter without calling the server', async () => {
    const api = mockApi({ 'GET /api/admin/audit': () => ({ data: { items: [], total: 0 } }) });
    const { user } = renderAt(<AuditPage />);
    expect(await screen.findByText('No actions match')).toBeInTheDocument();
    const before = api.calls.length;
    await user.type(screen.getByLabelText('Admin ID'), 'x1');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    expect(screen.getByText('Enter an admin ID (a whole number)')).toBeInTheDocument();
    expect(api.calls.length).toBe(before);
    expect(readDraft({ admin: '', action: '', start: '2026-11-05', end: '2026-11-01' })).toEqual({ error: 'dates', key: 'admin.audit.endBeforeStart' });
  });
});
