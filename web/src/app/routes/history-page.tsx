import { TransactionHistory } from '@/features/wallet';

/** `/account/history` (chunk Wallet): every bill with filters and paging. */
export function Component() {
  return (
    <div className="page page-narrow">
      <TransactionHistory />
    </div>
  );
}
