/**
 * Test setup: DOM matchers, an in-memory IndexedDB (fake-indexeddb), the DOM cleaned after
 * each test, and i18next running on the real en-US catalogue (every section), so tests find
 * texts as a user reads them.
 */
import '@testing-library/jest-dom/vitest';
import 'fake-indexeddb/auto';

import { cleanup } from '@testing-library/react';
import { afterEach, beforeAll } from 'vitest';

import { initI18n } from '@/lib/i18n';

beforeAll(async () => {
  await initI18n('en-US');
  const { ensureSections } = await import('@/lib/i18n');
  await ensureSections(['markets', 'trade', 'records', 'account', 'wallet', 'invite', 'security', 'profile', 'responsible', 'alerts', 'copy', 'tournaments', 'notifications', 'admin']);
});

afterEach(() => {
  cleanup();
  window.localStorage.clear();
});
