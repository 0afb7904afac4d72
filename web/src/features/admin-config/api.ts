/** System configuration (decisions §9) and where users pay deposits. */
import { adminApi } from '@/lib/admin-api';
import { decimal } from '@/lib/decimal';
import { type UploadOptions, upload } from '@/lib/upload';
import type { SiteInfo } from '@/stores/site';
import type { Schemas } from '@/types/api';

/**
 * The system config. `basic.customerServiceHours`: working hours as users see them, in UTC
 * (`09:00-21:00`); `basic.providerLink`: the site-package provider's chat, linked in the
 * back-office's sidebar.
 */
export type SystemConfig = Schemas['SystemConfig'];

/** Where users pay a deposit of one method. */
export type DepositAccount = Schemas['DepositAccountView'];

export const PAY_METHODS = ['bank_transfer', 'usdt_trc20', 'usdt_erc20'] as const satisfies readonly DepositAccount['method'][];

/** The public settings (`GET /api/admin/system/basic-info`) a saved config makes. */
export function siteInfoOf(basic: SystemConfig['basic']): SiteInfo {
  return {
    logo: basic.logo,
    siteName: basic.siteName,
    siteDescription: basic.siteDescription,
    emailLogin: basic.emailLogin,
    walletLogin: basic.walletLogin,
    customerService: { enabled: basic.customerServiceEnabled, serviceLink: basic.customerServiceLink, hours: basic.customerServiceHours },
    inviteCodeRequired: basic.inviteCodeRequired,
  };
}

export const fetchConfig = (signal?: AbortSignal) => adminApi.get<SystemConfig>('/admin/system/config', { signal });
export const saveConfig = (config: SystemConfig) => adminApi.put<SystemConfig>('/admin/system/config', config);
export const fetchDepositAccounts = (signal?: AbortSignal) => adminApi.get<DepositAccount[]>('/admin/system/deposit-accounts', { signal });
export const saveDepositAccounts = (accounts: DepositAccount[]) => adminApi.put<DepositAccount[]>('/admin/system/deposit-accounts', { accounts });

/** A stored upload: `url` is what `basic.logo` takes. */
export type Uploaded = Schemas['Uploaded'];

/** The images the server accepts (it checks the content too), and how large. */
export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
export const LOGO_BYTES_MAX = 5 * 1024 * 1024;

export const uploadLogo = (file: File, options: UploadOptions) => upload<Uploaded>(adminApi, '/admin/system/logo', file, options);

const RATE = /^\d(\.\d{1,4})?$/;
const MONEY = /^\d{1,10}(\.\d{1,2})?$/;
export const TEXT_MAX = 500;
export const SITE_NAME_MAX = 64;
/** The server's limit for short fields (the customer-service hours). */
export const FIELD_MAX = 100;
const LINK = /^https?:\/\/\S+$/;

/** Field path (`finance.withdrawMin`, `finance.rewardRates.1`) -> catalogue key of its problem. */
export type ConfigErrors = Record<string, string>;

export function checkConfig(config: SystemConfig): ConfigErrors {
  const errors: ConfigErrors = {};
  const { basic: b, finance: f } = config;
  if (!b.siteName.trim()) errors['basic.siteName'] = 'admin.config.errors.required';
  else if ([...b.siteName].length > SITE_NAME_MAX) errors['basic.siteName'] = 'admin.config.errors.tooLong';
  // Lengths as the server counts them: characters, before trimming.
  for (const key of ['logo', 'siteDescription', 'customerServiceLink', 'providerLink'] as const) {
    if ([...b[key]].length > TEXT_MAX) errors[`basic.${key}`] = 'admin.config.errors.tooLong';
  }
  if ([...b.customerServiceHours].length > FIELD_MAX) errors['basic.customerServiceHours'] = 'admin.config.errors.tooLong';
  if (b.customerServiceEnabled && !LINK.test(b.customerServiceLink.trim())) errors['basic.customerServiceLink'] = 'admin.config.errors.link';
  // The provider's link becomes a link in the sidebar: a web address or nothing.
  if (!errors['basic.providerLink'] && b.providerLink.trim() && !LINK.test(b.providerLink.trim())) errors['basic.providerLink'] = 'admin.config.errors.link';
  const rate = (path: string, value: string) => {
    if (!RATE.test(value.trim()) || decimal(value.trim())!.gt(1)) errors[path] = 'admin.config.errors.rate';
  };
  const money = (path: string, value: string) => {
    if (!MONEY.test(value.trim())) errors[path] = 'admin.config.errors.amount';
  };
  rate('finance.withdrawFeeRate', f.withdrawFeeRate);
  f.rewardRates.forEach((r, i) => rate(`finance.rewardRates.${i}`, r));
  for (const key of ['withdrawFeeFixed', 'withdrawMin', 'withdrawMax', 'depositMin', 'depositMax', 'demoBalance'] as const) money(`finance.${key}`, f[key]);
  for (const [min, max] of [['withdrawMin', 'withdrawMax'], ['depositMin', 'depositMax']] as const) {
    if (!errors[`finance.${min}`] && !errors[`finance.${max}`] && decimal(f[min].trim())!.gt(decimal(f[max].trim())!)) errors[`finance.${max}`] = 'admin.config.errors.minOverMax';
  }
  if (!Number.isInteger(f.openContractsPerUserMax) || f.openContractsPerUserMax < 1 || f.openContractsPerUserMax > 10_000) errors['finance.openContractsPerUserMax'] = 'admin.config.errors.count';
  return errors;
}
