/**
 * The signed-in admin's two-factor sign-in (RFC 6238): the shared panel
 * (components/two-factor-panel) with the admin's calls. Once it is on, the back-office's
 * sign-in asks for the code.
 */
import { TwoFactorPanel } from '@/components/two-factor-panel';

import { ownTwoFactor } from '../api';

export function OwnTwoFactor() {
  return <TwoFactorPanel variant="admin" texts="admin.account.twoFactor" calls={ownTwoFactor} />;
}
