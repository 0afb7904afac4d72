/**
 * The four money actions of the account centre and the wallet view (spec §2): Deposit,
 * Withdraw, Transfer and Bill, each opening its modal. After a deposit or withdrawal is
 * created the bill opens on that kind, where its status can be followed.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { useWallet } from '@/stores/wallet';

import { BillDialog } from './bill-dialog';
import { BillIcon, DepositIcon, TransferIcon, WithdrawIcon } from './icons';
import { DepositDialog } from './deposit-dialog';
import { TransferDialog } from './transfer-dialog';
import { WithdrawDialog } from './withdraw-dialog';

type Open = 'deposit' | 'withdraw' | 'transfer' | 'bill' | null;

export function WalletActions() {
  const { t } = useTranslation();
  const [open, setOpen] = useState<Open>(null);
  const [billKind, setBillKind] = useState<'deposit' | 'withdraw'>('deposit');
  const refresh = () => void useWallet.getState().load().catch(() => undefined);
  const close = () => setOpen(null);
  const items = [
    { key: 'deposit', icon: <DepositIcon />, label: t('wallet.actions.deposit') },
    { key: 'withdraw', icon: <WithdrawIcon />, label: t('wallet.actions.withdraw') },
    { key: 'transfer', icon: <TransferIcon />, label: t('wallet.actions.transfer') },
    { key: 'bill', icon: <BillIcon />, label: t('wallet.actions.bill') },
  ] as const;
  return (
    <>
      <div className="wallet-actions" role="group" aria-label={t('wallet.actions.label')}>
        {items.map((item) => (
          <button
            key={item.key}
            type="button"
            className="wallet-action"
            onClick={() => {
              if (item.key === 'bill') setBillKind('deposit');
              setOpen(item.key);
            }}
          >
            <span className="wallet-action-icon">{item.icon}</span>
            <span>{item.label}</span>
          </button>
        ))}
      </div>
      <DepositDialog open={open === 'deposit'} onClose={close} onDone={refresh} />
      <WithdrawDialog open={open === 'withdraw'} onClose={close} onDone={refresh} />
      <TransferDialog open={open === 'transfer'} onClose={close} onDone={refresh} />
      <BillDialog open={open === 'bill'} onClose={close} initial={billKind} />
    </>
  );
}
