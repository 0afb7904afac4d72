/** The user's invitation code, their team over three generations, and the rewards earned. */
import { api } from '@/lib/api';
import type { Schemas } from '@/types/api';

/**
 * The user's invitation. `link`: the server's link under the public origin the operator set
 * (`--public-origin`), or null when none was set: then the page builds it on its own origin
 * (`inviteLink`). `rewardRates`: the reward rate per generation (1, 2, 3) on invitees' settled
 * real stakes.
 */
export type Invite = Schemas['Invite'];

/** One generation of the user's team: how many, certified or not. */
export type Generation = Schemas['Generation'];

export const invitationsApi = {
  invite: () => api.get<Invite>('/invite'),
  team: () => api.get<Generation[]>('/invite/team'),
  /** Every reward bill of the real account: the total in is what was earned. */
  rewards: () => api.get<Schemas['Bills']>('/wallet/bills', { query: { account: 'real', type: 'reward', page: 1, pageSize: 1 } }),
};

/**
 * The invitation link to show: the server's when the operator set a public origin (an origin
 * set on purpose wins), else `{origin}/login/register?code=CODE` (decisions §5) on the origin
 * this page came from.
 */
export function inviteLink(invite: Pick<Invite, 'code' | 'link'>, origin: string): string {
  if (typeof invite.link === 'string' && invite.link !== '') return invite.link;
  return `${origin}/login/register?code=${encodeURIComponent(invite.code)}`;
}
