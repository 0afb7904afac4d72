import { Security } from '@/features/security';

/** `/account/security` (chunk SecurityPage): password, 2FA, sessions, sign-in history. */
export function Component() {
  return (
    <div className="page page-narrow">
      <Security />
    </div>
  );
}
