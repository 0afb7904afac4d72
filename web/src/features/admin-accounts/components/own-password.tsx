/**
 * The signed-in admin changes their own password (spec §5: every field filled, the new one at
 * least 6 characters, the two new ones equal), checked before the call and again as the admin
 * types once a check has failed. The server then ends every other session of this admin; this
 * one stays. The form is the shared one (components/password-change), with the admin's call.
 */
import type { Ref } from 'react';

import { PasswordChange } from '@/components/password-change';

import { changeOwnPassword } from '../api';
import { checkOwnPassword } from '../validation';

export function OwnPassword({ ref }: { ref?: Ref<HTMLElement> }) {
  return <PasswordChange ref={ref} variant="admin" texts="admin.account.password" change={changeOwnPassword} check={checkOwnPassword} />;
}
