/**
 * The signed-in user's copy trading (`GET /api/copy`), shared by the copy page and a trader's
 * profile. The server is the authority: every change is a call, and what it answers (the whole
 * `MyCopy`) replaces what was held.
 */
import { create } from 'zustand';

import { ApiError } from '@/lib/api-client';

import { type CopySettingsView, type MyCopy, copyApi } from '../api';

interface MyCopyState {
  mine: MyCopy | null;
  /** Reads it again; the answer replaces what is held. */
  load(): Promise<MyCopy>;
  setSharing(sharing: boolean): Promise<void>;
  /** Starts copying a trader, or changes the settings. */
  follow(uid: number, settings: CopySettingsView): Promise<void>;
  /** Stops copying a trader (one already gone is gone either way). */
  unfollow(uid: number): Promise<void>;
  /** Removes a follower (one already gone is gone either way). */
  removeFollower(uid: number): Promise<void>;
  /** Signed out: nothing held. */
  reset(): void;
}

/** Counts reads and changes, so that an answer older than the latest one is dropped. */
let version = 0;

export const useMyCopy = create<MyCopyState>()((set, get) => {
  const apply = async (call: () => Promise<MyCopy>) => {
    const asked = ++version;
    const mine = await call();
    if (asked === version) set({ mine });
  };
  /** A link that no longer exists (ended meanwhile): the list is read again, nothing failed. */
  const ending = async (call: () => Promise<MyCopy>) => {
    try {
      await apply(call);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'COPY_NOT_FOUND')) throw error;
      await get().load();
    }
  };
  return {
    mine: null,
    async load() {
      const asked = ++version;
      const mine = await copyApi.mine();
      if (asked === version) set({ mine });
      return mine;
    },
    setSharing: (sharing) => apply(() => copyApi.setSharing(sharing)),
    follow: (uid, settings) => apply(() => copyApi.follow(uid, settings)),
    unfollow: (uid) => ending(() => copyApi.unfollow(uid)),
    removeFollower: (uid) => ending(() => copyApi.removeFollower(uid)),
    reset() {
      version++;
      set({ mine: null });
    },
  };
});
