/** The site's public settings (`GET /api/admin/system/basic-info`), loaded once at start. */
import { create } from 'zustand';

import { api } from '@/lib/api';

export interface SiteInfo {
  logo: string;
  siteName: string;
  siteDescription: string;
  emailLogin: boolean;
  walletLogin: boolean;
  customerService: { enabled: boolean; serviceLink: string };
  inviteCodeRequired: boolean;
}

/** Customer service hours (spec §9). */
export const SUPPORT_HOURS = '9:00-21:00';

/** The spec's default name in the layout, until the server answers. */
export const DEFAULT_SITE_NAME = 'Trading Pro';

interface SiteState {
  info: SiteInfo | null;
  load(): Promise<void>;
}

export const useSite = create<SiteState>()((set) => ({
  info: null,
  async load() {
    try {
      set({ info: await api.get<SiteInfo>('/admin/system/basic-info') });
    } catch {
      // The shell works with defaults; sign-in modes stay hidden until the server answers.
    }
  },
}));
