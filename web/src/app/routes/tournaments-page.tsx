import { TournamentLobby } from '@/features/tournaments';

/** `/tournaments` (chunk TournamentsPage): the lobby, and my tournaments when signed in. */
export function Component() {
  return (
    <div className="page">
      <TournamentLobby />
    </div>
  );
}
