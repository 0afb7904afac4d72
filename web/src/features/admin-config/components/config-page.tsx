/**
 * System config: the site (name, logo uploaded with a preview, description), sign-in modes
 * and the invite-code rule, customer service (link and working hours), the provider's chat
 * link of the back-office, money (withdrawal fee and limits, deposit limits, open contracts per user,
 * the demo balance), referral reward rates, and where users pay deposits. Each part is
 * checked as the server checks it before it is saved, and saved as a whole.
 */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { useSubmit } from '@/lib/use-submit';
import { adminCan, useAdminSession } from '@/stores/admin-session';
import { useSite } from '@/stores/site';
import { toast } from '@/stores/toast';

import { type ConfigErrors, type DepositAccount, PAY_METHODS, type SystemConfig, checkConfig, fetchConfig, siteInfoOf, fetchDepositAccounts, saveConfig, saveDepositAccounts } from '../api';
import { LogoField } from './logo-field';

type Basic = SystemConfig['basic'];
type Finance = SystemConfig['finance'];

/**
 * Shows a saved config everywhere at once, as the server saved it: the site's name, logo and
 * customer service (the back-office's header, and the trader's screens of this tab) and the
 * provider's link in the sidebar, without waiting for a reload.
 */
function publish(saved: SystemConfig): void {
  useSite.getState().show(siteInfoOf(saved.basic));
  const session = useAdminSession.getState();
  if (session.admin) session.setAdmin({ ...session.admin, providerLink: saved.basic.providerLink });
}

function ConfigForm({ initial, canAct }: { initial: SystemConfig; canAct: boolean }) {
  const { t } = useTranslation();
  const [config, setConfig] = useState(initial);
  const [errors, setErrors] = useState<ConfigErrors>({});
  const request = useSubmit();

  const setBasic = <K extends keyof Basic>(key: K, value: Basic[K]) => {
    setConfig({ ...config, basic: { ...config.basic, [key]: value } });
    setErrors({ ...errors, [`basic.${key}`]: '' });
  };
  const setFinance = <K extends keyof Finance>(key: K, value: Finance[K]) => {
    setConfig({ ...config, finance: { ...config.finance, [key]: value } });
    setErrors({ ...errors, [`finance.${key}`]: '' });
  };
  const error = (path: string) => (errors[path] ? t(errors[path]) : undefined);
  const text = (key: 'siteName' | 'logo' | 'siteDescription' | 'customerServiceLink' | 'customerServiceHours' | 'providerLink', hint?: string) => (
    <Field
      label={t(`admin.config.fields.${key}`)}
      name={key}
      dir={key === 'siteName' || key === 'siteDescription' ? 'auto' : 'ltr'}
      readOnly={!canAct}
      value={config.basic[key]}
      error={error(`basic.${key}`)}
      hint={hint}
      onChange={(e) => setBasic(key, e.target.value)}
    />
  );
  const flag = (key: 'emailLogin' | 'walletLogin' | 'inviteCodeRequired' | 'customerServiceEnabled') => (
    <label className="admin-check">
      <input type="checkbox" disabled={!canAct} checked={config.basic[key]} onChange={(e) => setBasic(key, e.target.checked)} />
      {t(`admin.config.fields.${key}`)}
    </label>
  );
  const amount = (key: 'withdrawFeeRate' | 'withdrawFeeFixed' | 'withdrawMin' | 'withdrawMax' | 'depositMin' | 'depositMax' | 'demoBalance') => (
    <Field label={t(`admin.config.fields.${key}`)} name={key} inputMode="decimal" dir="ltr" readOnly={!canAct} value={config.finance[key]} error={error(`finance.${key}`)} onChange={(e) => setFinance(key, e.target.value)} />
  );

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = checkConfig(config);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    await request.run(async () => {
      const saved = await saveConfig(config);
      setConfig(saved);
      publish(saved);
      toast.success(t('admin.config.saved'));
    });
  };

  return (
    <form className="admin-config" onSubmit={(e) => void submit(e)} noValidate aria-label={t('admin.nav.config')}>
      <fieldset className="admin-card admin-user-form">
        <legend className="admin-card-title">{t('admin.config.site')}</legend>
        {text('siteName')}
        <LogoField url={config.basic.logo} siteName={config.basic.siteName} canAct={canAct} onChange={(url) => setBasic('logo', url)} />
        {text('logo')}
        {text('siteDescription')}
      </fieldset>
      <fieldset className="admin-card admin-user-form">
        <legend className="admin-card-title">{t('admin.config.signIn')}</legend>
        {flag('emailLogin')}
        {flag('walletLogin')}
        {flag('inviteCodeRequired')}
        {flag('customerServiceEnabled')}
        {text('customerServiceLink')}
        {text('customerServiceHours', t('admin.config.hints.customerServiceHours'))}
      </fieldset>
      <fieldset className="admin-card admin-user-form">
        <legend className="admin-card-title">{t('admin.config.backOffice')}</legend>
        {text('providerLink', t('admin.config.hints.providerLink'))}
      </fieldset>
      <fieldset className="admin-card admin-user-form">
        <legend className="admin-card-title">{t('admin.config.money')}</legend>
        <div className="admin-grid admin-grid-2">
          {amount('withdrawFeeRate')}
          {amount('withdrawFeeFixed')}
          {amount('withdrawMin')}
          {amount('withdrawMax')}
          {amount('depositMin')}
          {amount('depositMax')}
          <Field
            label={t('admin.config.fields.openContractsPerUserMax')}
            name="openContractsPerUserMax"
            inputMode="numeric"
            dir="ltr"
            readOnly={!canAct}
            value={String(config.finance.openContractsPerUserMax)}
            error={error('finance.openContractsPerUserMax')}
            onChange={(e) => setFinance('openContractsPerUserMax', /^\d{1,6}$/.test(e.target.value) ? Number(e.target.value) : Number.NaN)}
          />
          {amount('demoBalance')}
        </div>
      </fieldset>
      <fieldset className="admin-card admin-user-form">
        <legend className="admin-card-title">{t('admin.config.rewards')}</legend>
        <p className="muted">{t('admin.config.rewardsExplain')}</p>
        <div className="admin-grid admin-grid-3">
          {config.finance.rewardRates.map((rate, i) => (
            <Field
              key={i}
              label={t('admin.config.generation', { n: i + 1 })}
              name={`reward${i + 1}`}
              inputMode="decimal"
              dir="ltr"
              readOnly={!canAct}
              value={rate}
              error={error(`finance.rewardRates.${i}`)}
              onChange={(e) => setFinance('rewardRates', config.finance.rewardRates.map((r, j) => (j === i ? e.target.value : r)))}
            />
          ))}
        </div>
      </fieldset>
      <FormError text={request.error} />
      {canAct && (
        <button type="submit" className="btn btn-primary admin-add" disabled={request.busy}>
          {t('admin.config.save')}
        </button>
      )}
    </form>
  );
}

function DepositAccountsForm({ initial, canAct }: { initial: DepositAccount[]; canAct: boolean }) {
  const { t } = useTranslation();
  const [accounts, setAccounts] = useState<Record<string, DepositAccount>>(() =>
    Object.fromEntries(PAY_METHODS.map((m) => [m, initial.find((a) => a.method === m) ?? { method: m, name: '', number: '', bank: '' }])),
  );
  const request = useSubmit();
  const set = (method: string, key: 'name' | 'number' | 'bank', value: string) => setAccounts({ ...accounts, [method]: { ...accounts[method]!, [key]: value } });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // A method with neither name nor number is not offered.
    const offered = PAY_METHODS.map((m) => accounts[m]!).filter((a) => a.name.trim() || a.number.trim());
    await request.run(async () => {
      await saveDepositAccounts(offered.map((a) => ({ ...a, name: a.name.trim(), number: a.number.trim(), bank: a.bank.trim() })));
      toast.success(t('admin.config.accountsSaved'));
    });
  };
  return (
    <form className="admin-card admin-user-form" onSubmit={(e) => void submit(e)} noValidate aria-label={t('admin.config.accounts')}>
      <h2 className="admin-card-title">{t('admin.config.accounts')}</h2>
      <p className="muted">{t('admin.config.accountsExplain')}</p>
      {PAY_METHODS.map((method) => (
        <fieldset key={method} className="admin-account">
          <legend>{t(`admin.orders.methods.${method}`)}</legend>
          <div className="admin-grid admin-grid-3">
            <Field label={t('admin.config.accountName')} name={`${method}-name`} readOnly={!canAct} value={accounts[method]!.name} onChange={(e) => set(method, 'name', e.target.value)} />
            <Field label={t(method === 'bank_transfer' ? 'admin.config.accountNumber' : 'admin.config.address')} name={`${method}-number`} dir="ltr" readOnly={!canAct} value={accounts[method]!.number} onChange={(e) => set(method, 'number', e.target.value)} />
            {method === 'bank_transfer' && <Field label={t('admin.config.bank')} name={`${method}-bank`} readOnly={!canAct} value={accounts[method]!.bank} onChange={(e) => set(method, 'bank', e.target.value)} />}
          </div>
        </fieldset>
      ))}
      <FormError text={request.error} />
      {canAct && (
        <button type="submit" className="btn btn-primary" disabled={request.busy}>
          {t('admin.config.saveAccounts')}
        </button>
      )}
    </form>
  );
}

export function ConfigPage() {
  const { t } = useTranslation();
  const canAct = useAdminSession((s) => adminCan(s.admin, 'config:write'));
  const [loaded, setLoaded] = useState<{ config: SystemConfig; accounts: DepositAccount[] } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setFailure(null);
    Promise.all([fetchConfig(controller.signal), fetchDepositAccounts(controller.signal)])
      .then(([config, accounts]) => setLoaded({ config, accounts }))
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(e));
      });
    return () => controller.abort();
  }, [reload]);

  const again = useCallback(() => setReload((n) => n + 1), []);
  return (
    <div className="admin-page">
      <h1 className="page-title">{t('admin.nav.config')}</h1>
      {failure ? (
        <ErrorState text={failure} onRetry={again} />
      ) : !loaded ? (
        <SkeletonRows rows={8} columns={2} />
      ) : (
        <>
          <ConfigForm initial={loaded.config} canAct={canAct} />
          <DepositAccountsForm initial={loaded.accounts} canAct={canAct} />
        </>
      )}
    </div>
  );
}
