import { WalletView } from '@/features/wallet';

/** `/account/wallet` (chunk Wallet): balances, money actions, recent transactions. */
export function Component() {
  return (
    <div className="page page-narrow">
      <WalletView />
    </div>
  );
}
