/** Bills as a list: type, signed amount, balance after, time. Shared by the wallet view and the history. */
import { useTranslation } from 'react-i18next';

import { formatDateTime, formatMoney } from '@/lib/format';

import type { Bill } from '../api';

export function BillList({ bills }: { bills: Bill[] }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  return (
    <ul className="bill-list">
      {bills.map((b) => {
        const tone = b.amount.startsWith('-') ? 'down' : /^0(\.0+)?$/.test(b.amount) ? '' : 'up';
        return (
          <li key={b.id} className="bill-row">
            <span className="bill-type">{t(`wallet.billType.${b.type}`)}</span>
            <span className={`num bill-amount ${tone}`}>
              <bdi dir="ltr">{formatMoney(b.amount, lang, true)}</bdi>
            </span>
            <span className="muted bill-time">{formatDateTime(b.time, lang)}</span>
            <span className="muted num bill-balance">{t('wallet.balanceAfter', { balance: formatMoney(b.balance, lang) })}</span>
          </li>
        );
      })}
    </ul>
  );
}
