/**
 * What the user wants to hear about (spec §2 notification settings), stored on the server:
 * e-mail, price alerts, trade, system messages, marketing, newsletter. The trade and system
 * switches decide what the notification centre keeps and sounds; until they are loaded,
 * everything is on (the server's defaults).
 */
import { create } from 'zustand';

import { api } from '@/lib/api';
import type { Schemas } from '@/types/api';

export type NotificationSettings = Schemas['NotificationSettings'];

export const SETTING_KEYS: ReadonlyArray<keyof NotificationSettings> = ['email', 'priceAlerts', 'trade', 'system', 'marketing', 'newsletter'];

const ALL_ON: NotificationSettings = { email: true, priceAlerts: true, trade: true, system: true, marketing: true, newsletter: true };

interface PreferencesState {
  settings: NotificationSettings;
  loaded: boolean;
  load(): Promise<void>;
  save(next: NotificationSettings): Promise<void>;
  reset(): void;
}

export const usePreferences = create<PreferencesState>()((set) => ({
  settings: ALL_ON,
  loaded: false,
  async load() {
    set({ settings: await api.get<NotificationSettings>('/user/notification-settings'), loaded: true });
  },
  async save(next) {
    await api.put<NotificationSettings>('/user/notification-settings', next);
    set({ settings: next, loaded: true });
  },
  reset() {
    set({ settings: ALL_ON, loaded: false });
  },
}));
