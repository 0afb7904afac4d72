/**
 * The Login tab: account, e-mail (when `emailLogin` is on) or wallet (when `walletLogin` is
 * on), remember me, and the forgot-password link.
 */
import { Suspense, lazy, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Spinner } from '@/components/states';
import { Tabs } from '@/components/tabs';
import { useSite } from '@/stores/site';

import { AccountLoginForm } from './account-login-form';

// The other modes are fetched when chosen.
const EmailLoginForm = lazy(() => import('./email-login-form').then((m) => ({ default: m.EmailLoginForm })));
const WalletLogin = lazy(() => import('./wallet-login').then((m) => ({ default: m.WalletLogin })));

type Mode = 'account' | 'email' | 'wallet';

export function LoginPanel({ onForgot }: { onForgot(): void }) {
  const { t } = useTranslation();
  const info = useSite((s) => s.info);
  const [mode, setMode] = useState<Mode>('account');
  const [remember, setRemember] = useState(false);
  const modes: Array<{ key: Mode; label: string }> = [{ key: 'account', label: t('auth.modeAccount') }];
  if (info?.emailLogin) modes.push({ key: 'email', label: t('auth.modeEmail') });
  if (info?.walletLogin) modes.push({ key: 'wallet', label: t('auth.modeWallet') });
  const active = modes.some((m) => m.key === mode) ? mode : 'account';

  const extras = (
    <div className="auth-extras">
      <label className="checkbox">
        <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} />
        {t('auth.rememberMe')}
      </label>
      <button type="button" className="link-button" onClick={onForgot}>
        {t('auth.forgotPassword')}
      </button>
    </div>
  );

  return (
    <div>
      {modes.length > 1 && <Tabs<Mode> className="tabs-pills auth-modes" label={t('auth.modes')} value={active} onChange={setMode} items={modes} />}
      {active === 'account' && <AccountLoginForm remember={remember} extras={extras} onUseEmailCode={info?.emailLogin ? () => setMode('email') : undefined} />}
      <Suspense fallback={<Spinner />}>
        {active === 'email' && <EmailLoginForm remember={remember} extras={extras} />}
        {active === 'wallet' && <WalletLogin remember={remember} extras={extras} />}
      </Suspense>
    </div>
  );
}
