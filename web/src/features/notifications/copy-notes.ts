/**
 * Copy trading's notifications (a chunk of their own, loaded with the first `copy` or
 * `copy.refused` frame or copy note read back: see copy-texts.ts). Their texts are
 * `copyTrading.notify`, in the `copy` section.
 *
 * A live frame and the row `GET /api/copy/notes` keeps of it are the same note, so a
 * notification's id is derived from the note alone: the same note, live or read back, in any
 * tab, is one notification.
 */
import type { CopyNoteRow } from '@/types/api';

import type { StoredNotification } from './db';

/** Why a follower's copying ended, as the follower is told. */
const ENDED_FOR_FOLLOWER: Record<string, string> = {
  stop_reached: 'copyTrading.notify.endedStop',
  leader_stopped: 'copyTrading.notify.endedUnshared',
  by_leader: 'copyTrading.notify.endedRemoved',
};

/** The notification id of a note: its kind, time, follower, leader, and its change or the refused contract. */
export function copyNoteId(n: CopyNoteRow): string {
  return ['copy', n.kind, n.time, n.follower, n.leader, n.change ?? n.contractId ?? ''].join('-');
}

/**
 * A copy note (a `copy` or `copy.refused` frame, or the row kept of it) as the user `me` is
 * told it. The server sends a user only what they are to be told (never their own acts), so
 * every note is told, on the side the user is on:
 * - the follower, that their copying ended and why, or that a copy of the leader's order was
 *   refused;
 * - the leader, that someone started or stopped copying them.
 *
 * Null only for a note this app cannot put into words (a kind or change it does not know, or
 * one of another user).
 */
export function copyNoteNotification(n: CopyNoteRow, me: number | null): StoredNotification | null {
  const base = { id: copyNoteId(n), type: 'trade' as const, read: false, time: n.time };
  const params = { leader: n.leader, follower: n.follower };
  if (n.kind === 'copy.refused' && me === n.follower) {
    return {
      ...base,
      priority: 'medium',
      titleKey: 'copyTrading.notify.refusedTitle',
      messageKey: 'copyTrading.notify.refused',
      // The code is put into words when shown (params.ts), in the language of that moment.
      params: { leader: n.leader, refusal: n.code ?? '' },
      data: { path: `/copy/${n.leader}` },
    };
  }
  if (n.kind !== 'copy') return null;
  if (me === n.follower && n.change === 'ended') {
    return {
      ...base,
      priority: 'high',
      titleKey: 'copyTrading.notify.endedTitle',
      messageKey: (n.reason && ENDED_FOR_FOLLOWER[n.reason]) || 'copyTrading.notify.ended',
      params,
      data: { path: `/copy/${n.leader}` },
    };
  }
  if (me === n.leader && (n.change === 'started' || n.change === 'ended')) {
    return {
      ...base,
      priority: 'low',
      titleKey: 'copyTrading.notify.title',
      messageKey: n.change === 'started' ? 'copyTrading.notify.followerStarted' : 'copyTrading.notify.followerEnded',
      params,
      data: { path: '/copy' },
    };
  }
  return null;
}
