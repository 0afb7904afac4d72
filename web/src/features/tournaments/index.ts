/** Tournaments: the lobby, a tournament's page (enter, rebuy, live standings, each player's contracts). */
export { TournamentLobby } from './components/tournament-lobby';
export { TournamentPage } from './components/tournament-page';
