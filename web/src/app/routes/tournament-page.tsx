import { useParams } from 'react-router';

import { TournamentPage } from '@/features/tournaments';

/** `/tournaments/:id` (chunk TournamentPage): a tournament's rules, my entry and the standings. */
export function Component() {
  const { id } = useParams();
  const parsed = id && /^[1-9]\d{0,9}$/.test(id) ? Number(id) : null;
  return (
    <div className="page page-narrow">
      <TournamentPage key={id} id={parsed} />
    </div>
  );
}
