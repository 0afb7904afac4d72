import { AccountStatement } from '@/features/wallet';

/** `/account/statement` (chunk Wallet): a printable statement of the history's range. */
export function Component() {
  return (
    <div className="page page-narrow">
      <AccountStatement />
    </div>
  );
}
