import { AccountCentre } from '@/features/account';
import { signOutUser } from '@/features/auth';
import { DemoReset, WalletActions } from '@/features/wallet';

/** `/account` (chunk AccountPage). Sign-out and the money actions come from their features, composed here. */
export function Component() {
  return (
    <div className="page page-narrow">
      <AccountCentre onSignOut={() => signOutUser()} actions={<WalletActions />} demo={<DemoReset />} />
    </div>
  );
}
