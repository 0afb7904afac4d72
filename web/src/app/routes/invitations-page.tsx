import { Invitations } from '@/features/invitations';

/** `/account/invitations` (chunk InvitationsPage): link, code, QR, team and rewards. */
export function Component() {
  return (
    <div className="page page-narrow">
      <Invitations />
    </div>
  );
}
