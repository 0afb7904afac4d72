import { useParams } from 'react-router';

import { TraderProfile } from '@/features/copy-trading';

/** `/copy/:uid` (chunk TraderPage): a trader's profile, to copy them from. */
export function Component() {
  const { uid } = useParams();
  const parsed = uid && /^[1-9]\d{0,9}$/.test(uid) ? Number(uid) : null;
  return (
    <div className="page page-narrow">
      <TraderProfile key={uid} uid={parsed} />
    </div>
  );
}
