/**
 * Copy trading (gateway/src/api/copy.rs): traders who share their trades, ranked by their
 * real-account results; the signed-in user's own sharing, the traders they copy and their
 * followers. Amounts are decimal strings, times ms since the epoch.
 */
import { api } from '@/lib/api';
import type { Schemas } from '@/types/api';

/** The ranking's periods. */
export type Period = '24h' | '7d' | '30d';

export const PERIODS: readonly Period[] = ['24h', '7d', '30d'];

/** A trader's real-account results over a period. `winRate` is a decimal from "0" to "1"; `profit` USDT, may be negative. */
export type TraderStats = Schemas['TraderStats'];

/** A line of the ranking: `name` is masked ("al***e"). */
export type TraderItem = Schemas['TraderItem'];

/** The ranking of one period (`24h`, `7d` or `30d`), best profit first, refreshed at most once a minute (`refreshedAt`). */
export type TraderBoard = Schemas['TraderBoard'];

/** A trader who shares their trades, with the results of the last day, week and month. */
export type TraderProfile = Schemas['TraderProfile'];

/**
 * How a follower copies a leader: on which account (a real one copies only the leader's real
 * orders, a demo one all of them); a copy's stake is `percent` (1-1000) of the leader's, raised
 * to `minStake` and cut to `maxStake`; copying ends when the follower's available balance of
 * that account is below `stopBelow` when the leader places an order ("0": no stop).
 */
export type CopySettingsView = Schemas['CopySettingsView'];

/** A trader I copy (`following`): the leader (uid, masked name), since when, and my settings. */
export type CopyLink = Schemas['CopyLink'];

/**
 * Someone who copies me (`followers`): uid, masked name, since when, and only the wallet their
 * copies trade from (their stakes and stop level are theirs alone).
 */
export type FollowerLink = Schemas['FollowerLink'];

/** The user's copy trading: whether their trades are shared, whom they copy, who copies them, and the limits. */
export type MyCopy = Schemas['MyCopy'];

export const copyApi = {
  /** No sign-in needed. */
  traders: (period: Period) => api.get<TraderBoard>('/copy/traders', { query: { period } }),
  /** No sign-in needed; 404 `NOT_COPYABLE` when the trader does not share their trades. */
  trader: (uid: number) => api.get<TraderProfile>(`/copy/traders/${uid}`),
  mine: () => api.get<MyCopy>('/copy'),
  /**
   * Opt in or out of being copied (out ends every follower's copying); 409 `SHARING_FULL` when
   * as many traders share as allowed.
   */
  setSharing: (sharing: boolean) => api.put<MyCopy>('/copy/sharing', { sharing }),
  /** Start copying a trader, or change the settings. */
  follow: (uid: number, settings: CopySettingsView) => api.put<MyCopy>(`/copy/following/${uid}`, settings),
  unfollow: (uid: number) => api.delete<MyCopy>(`/copy/following/${uid}`),
  removeFollower: (uid: number) => api.delete<MyCopy>(`/copy/followers/${uid}`),
};
