import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';

import { useAdminSession } from '@/stores/admin-session';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';
import { mockXhr } from '@/testing/xhr';

import { type SystemConfig, checkConfig } from '../api';
import { ConfigPage } from './config-page';

const CONFIG: SystemConfig = {
  basic: { siteName: 'Trading Pro', logo: '', siteDescription: '', emailLogin: true, walletLogin: true, customerServiceEnabled: false, customerServiceLink: '', customerServiceHours: '09:00-21:00', inviteCodeRequired: false, providerLink: '' },
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

  it('checks the customer-service hours and the provider link as the server does', () => {
    const basic = (patch: Partial<SystemConfig['basic']>) => checkConfig({ ...CONFIG, basic: { ...CONFIG.basic, ...patch } });
    expect(basic({ customerServiceHours: 'x'.repeat(100), providerLink: `https://chat.example/${'p'.repeat(479)}` })).toEqual({});
    expect(basic({ customerServiceHours: '' })).toEqual({});
    expect(basic({ customerServiceHours: 'x'.repeat(101) })).toEqual({ 'basic.customerServiceHours': 'admin.config.errors.tooLong' });
    expect(basic({ providerLink: `https://chat.example/${'p'.repeat(480)}` })).toEqual({ 'basic.providerLink': 'admin.config.errors.tooLong' });
    expect(basic({ providerLink: 'javascript:alert(1)' })).toEqual({ 'basic.providerLink': 'admin.config.errors.link' });
  });

  it('saves the hours and the provider link, refusing what the server would refuse', async () => {
    const api = mockApi({
      'GET /api/admin/system/config': () => ({ data: CONFIG }),
      'GET /api/admin/system/deposit-accounts': () => ({ data: [] }),
      'PUT /api/admin/system/config': (body) => ({ data: body }),
    });
    const { user } = renderAt(<ConfigPage />);
    const form = await screen.findByRole('form', { name: 'System config' });
    const hours = within(form).getByLabelText('Customer service hours (UTC)');
    expect(hours).toHaveValue('09:00-21:00');
    expect(hours).toHaveAccessibleDescription(/e\.g\. 09:00-21:00/);
    await user.clear(hours);
    await user.click(hours);
    await user.paste('9'.repeat(101));
    const link = within(form).getByLabelText('Provider chat link');
    await user.type(link, 'chat.example/acme');
    await user.click(within(form).getByRole('button', { name: 'Save config' }));
    expect(hours).toHaveAccessibleDescription('Too long');
    expect(link).toHaveAccessibleDescription('Enter a link starting with http:// or https://');
    expect(api.count('PUT /api/admin/system/config')).toBe(0);

    await user.clear(hours);
    await user.type(hours, '08:00-20:00');
    await user.clear(link);
    await user.type(link, 'https://chat.example/acme');
    await user.click(within(form).getByRole('button', { name: 'Save config' }));
    await waitFor(() => expect(api.count('PUT /api/admin/system/config')).toBe(1));
    const sent = api.calls.find((c) => c.key === 'PUT /api/admin/system/config')?.body as SystemConfig;
    expect(sent.basic).toMatchObject({ customerServiceHours: '08:00-20:00', providerLink: 'https://chat.example/acme' });
  });

  it('uploads a logo with its progress, previews it and saves its address; it can be removed', async () => {
    const xhr = mockXhr();
    const api = mockApi({
      'GET /api/admin/system/config': () => ({ data: CONFIG }),
      'GET /api/admin/system/deposit-accounts': () => ({ data: [] }),
      'PUT /api/admin/system/config': (body) => ({ data: body }),
    });
    const { user } = renderAt(<ConfigPage />);
    const form = await screen.findByRole('form', { name: 'System config' });
    expect(within(form).getByText('No logo: the site name is shown instead')).toBeInTheDocument();
    await user.upload(within(form).getByLabelText('Upload a logo'), new File(['png'], 'logo.png', { type: 'image/png' }));
    const sent = xhr.last!;
    expect([sent.method, sent.url, sent.headers.Authorization]).toEqual(['POST', '/api/admin/system/logo', 'Bearer t']);
    expect((sent.body as FormData).get('file')).toBeInstanceOf(File);
    act(() => sent.progress(50, 100));
    expect(within(form).getByRole('progressbar', { name: 'Logo upload' })).toHaveAttribute('value', '50');
    expect(within(form).getByText('Uploading… 50 %')).toBeInTheDocument();
    act(() => sent.respond(200, { success: true, data: { name: 'l1.png', url: '/api/uploads/l1.png', contentType: 'image/png', size: 3 }, message: 'OK' }));
    expect(await within(form).findByRole('img', { name: 'Logo of Trading Pro' })).toHaveAttribute('src', '/api/uploads/l1.png');
    expect(within(form).getByText('Logo uploaded. Save the config to show it on the site.')).toBeInTheDocument();
    expect(within(form).queryByRole('progressbar')).toBeNull();
    expect(within(form).getByLabelText('Logo (image URL)')).toHaveValue('/api/uploads/l1.png');
    await user.click(within(form).getByRole('button', { name: 'Save config' }));
    await waitFor(() => expect(api.count('PUT /api/admin/system/config')).toBe(1));
    expect((api.calls.find((c) => c.key === 'PUT /api/admin/system/config')?.body as SystemConfig).basic.logo).toBe('/api/uploads/l1.png');

    await user.click(within(form).getByRole('button', { name: 'Remove logo' }));
    expect(within(form).queryByRole('img')).toBeNull();
    expect(within(form).getByLabelText('Logo (image URL)')).toHaveValue('');
  });

  it('refuses a file that is not an accepted image, before sending it or when the server does', async () => {
    const xhr = mockXhr();
    mockApi({
      'GET /api/admin/system/config': () => ({ data: { ...CONFIG, basic: { ...CONFIG.basic, logo: '/api/uploads/old.png' } } }),
      'GET /api/admin/system/deposit-accounts': () => ({ data: [] }),
    });
    const { user } = renderAt(<ConfigPage />);
    const form = await screen.findByRole('form', { name: 'System config' });
    const input = within(form).getByLabelText('Upload a logo');
    // The file picker offers only accepted types; a browser may still let another through.
    await userEvent.setup({ applyAccept: false }).upload(input, new File(['<svg/>'], 'logo.svg', { type: 'image/svg+xml' }));
    expect(within(form).getByRole('alert')).toHaveTextContent('Only PNG, JPEG, GIF and WebP images are accepted');
    expect(xhr.last).toBeNull();

    // A PNG by its name and type whose content is not an image: the server refuses it.
    await user.upload(input, new File(['not an image'], 'fake.png', { type: 'image/png' }));
    act(() => xhr.last!.respond(415, { success: false, data: null, message: 'Only PNG, JPEG, GIF and WebP images are accepted', code: 'UNSUPPORTED_MEDIA_TYPE' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('Only PNG, JPEG, GIF and WebP images are accepted');
    expect(within(form).getByRole('img', { name: 'Logo of Trading Pro' })).toHaveAttribute('src', '/api/uploads/old.png');
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
