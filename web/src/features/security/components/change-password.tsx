/**
 * Change (or, for a wallet user, set) the login password: spec §5's rules and messages, and
 * its notice that withdrawals wait 24 hours after a change. Other sessions end; this one stays.
 * The form is the shared one (components/password-change), with the trader's call and rules.
 */
import { PasswordChange, type PasswordForm } from '@/components/password-change';
import { useSession } from '@/stores/session';

import { securityApi } from '../api';
import { checkPasswordChange } from '../validation';

export function ChangePassword({ onChanged }: { onChanged?(): void }) {
  const hasPassword = useSession((s) => s.user?.hasPassword ?? true);
  // One message for the whole form, whichever rule it is.
  const check = (form: PasswordForm) => {
    const problem = checkPasswordChange(form, hasPassword);
    return problem ? { form: problem } : {};
  };
  const changed = () => {
    const user = useSession.getState().user;
    if (user && !user.hasPassword) useSession.getState().setUser({ ...user, hasPassword: true });
    onChanged?.();
  };
  return <PasswordChange variant="trader" texts="security.password" change={securityApi.changePassword} check={check} hasPassword={hasPassword} onChanged={changed} />;
}
