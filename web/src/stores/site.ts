/**
 * The site's public settings (`GET /api/admin/system/basic-info`), loaded once at start and
 * replaced by the back-office when it saves the system config.
 */
import { create } from 'zustand';

import { api } from '@/lib/api';
import type { BasicInfo } from '@/types/api';

/**
 * The site's public settings (the server's BasicInfo). `customerService.hours`: the working
 * hours in UTC as the operator wrote them (`09:00-21:00`), '' for none; read as optional, as
 * the app has always taken a server that does not send them (see {@link supportHours}).
 */
export type SiteInfo = Omit<BasicInfo, 'customerService'> & {
  customerService: Omit<BasicInfo['customerService'], 'hours'> & Partial<Pick<BasicInfo['customerService'], 'hours'>>;
};

/** Customer service hours (spec §9), until the server says the operator's. */
export const SUPPORT_HOURS = '9:00-21:00';

/**
 * The customer-service hours to show: the operator's (basic-info's `customerService.hours`),
 * '' when the operator left them empty, the spec's while the server has not answered (or is
 * one that does not send them).
 */
export function supportHours(info: SiteInfo | null): string {
  const hours = info?.customerService.hours;
  return hours === undefined ? SUPPORT_HOURS : hours.trim();
}

/** The customer-service hours to show, re-rendering when the site's settings arrive. */
export function useSupportHours(): string {
  return useSite((s) => supportHours(s.info));
}

/** The spec's default name in the layout, until the server answers. */
export const DEFAULT_SITE_NAME = 'Trading Pro';

interface SiteState {
  info: SiteInfo | null;
  load(): Promise<void>;
  /** The settings as just saved (the back-office's system config): every screen shows them at once. */
  show(info: SiteInfo): void;
}

/** Counts `show` calls, so that a load answered before a save cannot undo what the save showed. */
let shown = 0;

export const useSite = create<SiteState>()((set) => ({
  info: null,
  show(info) {
    shown += 1;
    set({ info });
  },
  async load() {
    const before = shown;
    try {
      const info = await api.get<BasicInfo>('/admin/system/basic-info');
      if (shown === before) set({ info });
    } catch {
      // The shell works with defaults; sign-in modes stay hidden until the server answers.
    }
  },
}));
