import { AccountCentre } from '@/features/account';
import { signOutUser } from '@/features/auth';

/** `/account` (chunk AccountPage). Sign-out comes from the auth feature, composed here. */
export function Component() {
  return (
    <div className="page page-narrow">
      <AccountCentre onSignOut={() => signOutUser()} />
    </div>
  );
}
