/** The account switch (real, demo, and the tournament balance while one is played) with the chosen account's available balance. */
import { useTranslation } from 'react-i18next';

import { formatMoney } from '@/lib/format';
import { type AccountKind, accountsOf, useWallet } from '@/stores/wallet';

export function AccountSwitch() {
  const { t, i18n } = useTranslation();
  const account = useWallet((s) => s.account);
  const balances = useWallet((s) => s.balances);
  const setAccount = useWallet((s) => s.setAccount);
  const available = balances[account]?.available;
  return (
    <label className={`account-switch account-${account}`}>
      <span className="account-switch-kind">{t(`header.${account}`)}</span>
      <span className="account-switch-balance num">{available === undefined ? '--' : formatMoney(available, i18n.language)}</span>
      <select aria-label={t('header.accountSwitch')} value={account} onChange={(e) => setAccount(e.target.value as AccountKind)}>
        {accountsOf(balances).map((kind) => (
          <option key={kind} value={kind}>
            {t(`header.${kind}`)} · {balances[kind] ? formatMoney(balances[kind].available, i18n.language) : '--'} USDT
          </option>
        ))}
      </select>
    </label>
  );
}
