import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';

import { type AdminInfo, useAdminSession } from '@/stores/admin-session';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import type { EarlyClose, Rule } from '../api';
import { checkRule, example } from '../form';
import { RulesPage } from './rules-page';

const SUPER: AdminInfo = { id: 1, username: 'root', role: 'super', permissions: ['rules:read', 'rules:write'] };
const READER: AdminInfo = { id: 2, username: 'reader', role: 'viewer', permissions: ['rules:read'] };

const minute: Rule = { duration: 60, payoutRate: '0.85', minAmount: '1', maxAmount: '5000', feeRate: '0', enabled: true };
const hour: Rule = { duration: 3600, payoutRate: '0.8', minAmount: '1', maxAmount: '5000', feeRate: '0', enabled: true };
const early: EarlyClose = { enabled: true, cutoffSecs: 5, spread: '0.05', durations: [], products: [], windowReturns: 120, windowReturnsMin: 20, rule: [] };
const EARLY = { 'GET /api/admin/rules/early-close': () => ({ data: early }), 'GET /api/admin/products': () => ({ data: [] }) };

describe('game rules', () => {
  beforeEach(() => useAdminSession.getState().signIn('t', SUPER));

  it('checks a rule as the server does', () => {
    const ok = { duration: '300', payoutRate: '0.85', minAmount: '1', maxAmount: '100', feeRate: '0.01', enabled: true };
    expect(checkRule(ok)).toEqual({});
    expect(checkRule({ ...ok, duration: '0' }).duration).toBeDefined();
    expect(checkRule({ ...ok, duration: '1.5' }).duration).toBeDefined();
    expect(checkRule({ ...ok, payoutRate: '1.5' }).payoutRate).toBeDefined();
    expect(checkRule({ ...ok, feeRate: '0.12345' }).feeRate).toBeDefined();
    expect(checkRule({ ...ok, minAmount: '0' }).minAmount).toBeDefined();
    expect(checkRule({ ...ok, minAmount: '200' }).maxAmount).toBe('admin.rules.errors.minOverMax');
    expect(example({ payoutRate: '0.85', feeRate: '0.015' })).toEqual({ credit: '185.00', fee: '1.50' });
  });

  it('says what rules are, previews a change and saves it for new contracts', async () => {
    let rules = [hour, minute];
    const api = mockApi({
      ...EARLY,
      'GET /api/admin/rules': () => ({ data: rules }),
      'PUT /api/admin/rules': (body) => {
        rules = [body as Rule, hour];
        return { data: rules };
      },
    });
    const { user } = renderAt(<RulesPage />);
    expect(screen.getByText(/Outcomes come from market prices alone/)).toBeInTheDocument();
    const rows = await screen.findAllByRole('row');
    expect(rows[1]).toHaveTextContent('1 min');
    expect(rows[2]).toHaveTextContent('1 h');

    await user.click(screen.getByRole('button', { name: 'Edit the 1 min rule' }));
    const dialog = screen.getByRole('dialog', { name: 'Rule for 1 min' });
    const rate = within(dialog).getByLabelText('Payout rate');
    await user.clear(rate);
    await user.type(rate, '0.9');
    const preview = within(dialog).getByRole('table', { name: 'The change' });
    const changed = within(preview).getByRole('row', { name: /A winning 100 USDT stake/ });
    expect(changed).toHaveTextContent('185.00');
    expect(changed).toHaveTextContent('190.00');
    expect(within(dialog).getByText('Applies to new contracts only.')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Save rule' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.calls.find((c) => c.key === 'PUT /api/admin/rules')?.body).toEqual({ ...minute, payoutRate: '0.9' });
    expect((await screen.findAllByRole('row'))[1]).toHaveTextContent('90%');
  });

  it('refuses a bad rule before calling the server and removes one after confirming', async () => {
    const api = mockApi({
      ...EARLY,
      'GET /api/admin/rules': () => ({ data: [minute, hour] }),
      'DELETE /api/admin/rules/3600': () => ({ data: [minute] }),
    });
    const { user } = renderAt(<RulesPage />);
    await user.click(await screen.findByRole('button', { name: 'Add a duration' }));
    const dialog = screen.getByRole('dialog', { name: 'Add a duration' });
    await user.type(within(dialog).getByLabelText('Duration (seconds)'), '0');
    await user.click(within(dialog).getByRole('button', { name: 'Save rule' }));
    expect(within(dialog).getByText('Enter whole seconds from 1 to 604800 (a week)')).toBeInTheDocument();
    expect(api.count('PUT /api/admin/rules')).toBe(0);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));

    await user.click(screen.getByRole('button', { name: 'Remove the 1 h rule' }));
    await user.click(within(screen.getByRole('dialog', { name: 'Remove the 1 h rule?' })).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(screen.queryByText('1 h')).toBeNull());
    expect(api.count('DELETE /api/admin/rules/3600')).toBe(1);
  });

  it('shows a reader the rules without actions', async () => {
    useAdminSession.getState().signIn('t', READER);
    mockApi({ ...EARLY, 'GET /api/admin/rules': () => ({ data: [minute] }) });
    renderAt(<RulesPage />);
    await screen.findByText('1 min');
    expect(await screen.findByRole('switch', { name: 'Offer early close' })).toBeDisabled();
    expect(screen.queryByRole('button')).toBeNull();
  });

  it("offers early close's spread for each rule's duration, below the rules", async () => {
    mockApi({ ...EARLY, 'GET /api/admin/rules': () => ({ data: [hour, minute] }) });
    renderAt(<RulesPage />);
    const section = await screen.findByRole('form', { name: 'Early close' });
    const fields = await within(section).findAllByLabelText(/^Spread for /);
    expect(fields.map((f) => f.getAttribute('name'))).toEqual(['duration-60', 'duration-3600']);
  });
});
