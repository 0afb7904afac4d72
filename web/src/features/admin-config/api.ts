/** System configuration (decisions §9) and where users pay deposits. */
import { adminApi } from '@/lib/admin-api';
import { decimal } from '@/lib/decimal';

export interface SystemConfig {
  basic: {
    siteName: string;
    logo: string;
    siteDescription: string;
    emailLogin: boolean;
    walletLogin: boolean;
    customerServiceEnabled: boolean;
    customerServiceLink: string;
    inviteCodeRequired: boolean;
  };
  finance: {
    withdrawFeeRate: string;
    withdrawFeeFixed: string;
    withdrawMin: string;
    withdrawMax: string;
    depositMin: string;
    depositMax: string;
    openContractsPerUserMax: number;
    rewardRates: string[];
    demoBalance: string;
  };
}

export interface DepositAccount {
  method: 'bank_transfer' | 'usdt_trc20' | 'usdt_erc20';
  name: string;
  number: string;
  bank: string;
}

export const PAY_METHODS = ['bank_transfer', 'usdt_trc20', 'usdt_erc20'] as const;

export const fetchConfig = (signal?: AbortSignal) => adminApi.get<SystemConfig>('/admin/system/config', { signal });
export const saveConfig = (config: SystemConfig) => adminApi.put<SystemConfig>('/admin/system/config', config);
export const fetchDepositAccounts = (signal?: AbortSignal) => adminApi.get<DepositAccount[]>('/admin/system/deposit-accounts', { signal });
export const saveDepositAccounts = (accounts: DepositAccount[]) => adminApi.put<DepositAccount[]>('/admin/system/deposit-accounts', { accounts });

const RATE = /^\d(\.\d{1,4})?$/;
const MONEY = /^\d{1,10}(\.\d{1,2})?$/;
export const TEXT_MAX = 500;
export const SITE_NAME_MAX = 64;

/** Field path (`finance.withdrawMin`, `finance.rewardRates.1`) -> catalogue key of its problem. */
export type ConfigErrors = Record<string, string>;

export function checkConfig(config: SystemConfig): ConfigErrors {
  const errors: ConfigErrors = {};
  const { basic: b, finance: f } = config;
  if (!b.siteName.trim()) errors['basic.siteName'] = 'admin.config.errors.required';
  else if ([...b.siteName].length > SITE_NAME_MAX) errors['basic.siteName'] = 'admin.config.errors.tooLong';
  for (const key of ['logo', 'siteDescription', 'customerServiceLink'] as const) {
    if ([...b[key]].length > TEXT_MAX) errors[`basic.${key}`] = 'admin.config.errors.tooLong';
  }
  if (b.customerServiceEnabled && !/^https?:\/\/\S+$/.test(b.customerServiceLink.trim())) errors['basic.customerServiceLink'] = 'admin.config.errors.link';
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
