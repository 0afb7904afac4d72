/**
 * Copy trading's notifications (a chunk of their own, loaded with the first `copy` or
 * `copy.refused` frame: see copy-texts.ts). Their texts are `copyTrading.notify`, in the `copy`
 * section.
 */
import type { CopyFrame, CopyRefusedFrame } from '@/lib/ws-frames';

import type { StoredNotification } from './db';

/** Why a follower's copying ended, as the follower is told (`by_follower`: their own act, not told). */
const ENDED_FOR_FOLLOWER: Record<string, string> = {
  stop_reached: 'copyTrading.notify.endedStop',
  leader_stopped: 'copyTrading.notify.endedUnshared',
  by_leader: 'copyTrading.notify.endedRemoved',
};

/**
 * A copy link's change (`copy` frame, sent to both sides) as the user is told it, or null when
 * there is nothing to tell: the follower hears that their copying ended (and why) unless they
 * ended it, the leader that someone started or stopped copying them unless the leader ended it
 * (removing the follower, or no longer sharing). Settings changed are told to no one.
 */
export function copyNotification(f: CopyFrame, me: number | null, time = Date.now()): StoredNotification | null {
  const base = { type: 'trade' as const, read: false, time, params: { leader: f.leader, follower: f.follower } };
  if (me === f.follower && f.change === 'ended' && f.reason !== 'by_follower') {
    return {
      ...base,
      id: `copy-${f.leader}-${f.follower}-ended-${time}`,
      priority: 'high',
      titleKey: 'copyTrading.notify.endedTitle',
      messageKey: (f.reason && ENDED_FOR_FOLLOWER[f.reason]) || 'copyTrading.notify.ended',
      data: { path: `/copy/${f.leader}` },
    };
  }
  if (me === f.leader && (f.change === 'started' || (f.change === 'ended' && f.reason !== 'by_leader' && f.reason !== 'leader_stopped'))) {
    return {
      ...base,
      id: `copy-${f.leader}-${f.follower}-${f.change}-${time}`,
      priority: 'low',
      titleKey: 'copyTrading.notify.title',
      messageKey: f.change === 'started' ? 'copyTrading.notify.followerStarted' : 'copyTrading.notify.followerEnded',
      data: { path: '/copy' },
    };
  }
  return null;
}

/** A follower's copy of a leader's order refused (`copy.refused`): the leader's order stands. */
export function copyRefusedNotification(f: CopyRefusedFrame, time = Date.now()): StoredNotification {
  return {
    id: `copy-refused-${f.leader}-${f.contractId}`,
    type: 'trade',
    priority: 'medium',
    titleKey: 'copyTrading.notify.refusedTitle',
    messageKey: 'copyTrading.notify.refused',
    // The code is put into words when shown (params.ts), in the language of that moment.
    params: { leader: f.leader, refusal: f.code },
    time,
    read: false,
    data: { path: `/copy/${f.leader}` },
  };
}
