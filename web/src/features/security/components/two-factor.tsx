/**
 * Two-factor authentication (decisions §6, RFC 6238) on the security page: the shared panel
 * (components/two-factor-panel) with the trader's calls. A wallet user without a password sets
 * one (the form above on this page) before turning it off.
 */
import { type TwoFactorCalls, TwoFactorPanel } from '@/components/two-factor-panel';
import { useSession } from '@/stores/session';

import { securityApi } from '../api';

const CALLS: TwoFactorCalls = { state: securityApi.twoFactor, setup: securityApi.setup, enable: securityApi.enable, disable: securityApi.disable };

export function TwoFactor() {
  const hasPassword = useSession((s) => s.user?.hasPassword ?? true);
  return <TwoFactorPanel variant="trader" texts="security.twoFactor" calls={CALLS} canDisable={hasPassword} />;
}
