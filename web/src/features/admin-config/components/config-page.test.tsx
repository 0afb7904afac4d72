import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';

import { useAdminSession } from '@/stores/admin-session';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { type SystemConfig, checkConfig } from '../api';
import { ConfigPage } from './config-page';

const CONFIG: SystemConfig = {
  basic: { siteName: 'Trading Pro', logo: '', siteDescription: '', emailLogin: true, walletLogin: true, customerServiceEnabled: false, customerServiceLink: '', inviteCodeRequired: false },
  finance: { withdrawFeeRate: '0.01', withdrawFeeFixed: '1', withdrawMin: '10', withdrawMax: '50000', depositMin: '10', depositMax: '100000', openContractsPerUserMax: 200, rewardRates: ['0.005', '0.003', '0.002'], demoBalance: '10000' },
};

describe('system config', () => {
  beforeEach(() => useAdminSession.getState().signIn('t', { id: 1, username: 'root', role: 'super', permissions: ['config:read', 'config:write'] }));

  it('checks the config as the server does', () => {
    expect(checkConfig(CONFIG)).toEqual({});
    const bad: SystemConfig = {
      basic: { ...CONFIG.basic, siteName: ' ', customerServiceEnabled: true, customerServiceLink: 'chat' },
      finance: { ...CONFIG.finance, withdrawFeeRate: '2', withdrawMin: '100', withdrawMax: '50', rewardRates: ['0.005', 'x', '0.002'], openContractsPerUserMax: 0 },
    };
    expect(checkConfig(bad)).toEqual({
      'basic.siteName': 'admin.config.errors.required',
      'basic.customerServiceLink': 'admin.config.errors.link',
      'finance.withdrawFeeRate': 'admin.config.errors.rate',
      'finance.rewardRates.1': 'admin.config.errors.rate',
      'finance.withdrawMax': 'admin.config.errors.minOverMax',
      'finance.openContractsPerUserMax': 'admin.config.errors.count',
    });
  });

  it('saves the config and the receiving details, leaving out an empty method', async () => {
    const api = mockApi({
      'GET /api/admin/system/config': () => ({ data: CONFIG }),
      'GET /api/admin/system/deposit-accounts': () => ({ data: [{ method: 'usdt_trc20', name: 'Platform', number: 'TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz', bank: '' }] }),
      'PUT /api/admin/system/config': (body) => ({ data: body }),
      'PUT /api/admin/system/deposit-accounts': (body) => ({ data: (body as { accounts: unknown[] }).accounts }),
    });
    const { user } = renderAt(<ConfigPage />);
    const form = await screen.findByRole('form', { name: 'System config' });
    const name = within(form).getByLabelText('Site name');
    await user.clear(name);
    await user.click(within(form).getByRole('button', { name: 'Save config' }));
    expect(within(form).getByText('Required')).toBeInTheDocument();
    expect(api.count('PUT /api/admin/system/config')).toBe(0);
    await user.type(name, 'Rise Fall');
    await user.click(within(form).getByLabelText('An invite code is required to register'));
    await user.click(within(form).getByRole('button', { name: 'Save config' }));
    await waitFor(() => expect(api.count('PUT /api/admin/system/config')).toBe(1));
    const sent = api.calls.find((c) => c.key === 'PUT /api/admin/system/config')?.body as SystemConfig;
    expect(sent.basic).toMatchObject({ siteName: 'Rise Fall', inviteCodeRequired: true });

    const accounts = screen.getByRole('form', { name: 'Deposit receiving details' });
    await user.type(within(accounts).getAllByLabelText('Account name')[0]!, 'Trading Ltd');
    await user.type(within(accounts).getByLabelText('Account number'), 'DE89370400440532013000');
    await user.type(within(accounts).getByLabelText('Bank'), 'Example Bank');
    await user.click(within(accounts).getByRole('button', { name: 'Save receiving details' }));
    await waitFor(() => expect(api.count('PUT /api/admin/system/deposit-accounts')).toBe(1));
    const saved = (api.calls.find((c) => c.key === 'PUT /api/admin/system/deposit-accounts')?.body as { accounts: Array<{ method: string }> }).accounts;
    expect(saved.map((a) => a.method)).toEqual(['bank_transfer', 'usdt_trc20']);
  });
});
