/**
 * Copy trading's notifications are rare next to every page's load, so their code
 * (copy-notes.ts) and texts (the `copy` section) stay out of the shell: loaded with the first
 * copy frame or copy note caught up, or when the centre holds a copy notification kept from
 * before.
 */
import { ensureSections } from '@/lib/i18n';

import type { StoredNotification } from './db';

export type CopyNotes = typeof import('./copy-notes');

/** The text section (scripts/locale-sections.ts) that holds the `copyTrading` texts. */
export const COPY_SECTION = 'copy';

/** The notification builders, once their texts are there too. */
export async function loadCopyNotes(): Promise<CopyNotes> {
  const [notes] = await Promise.all([import('./copy-notes'), ensureSections([COPY_SECTION])]);
  return notes;
}

/** Is this a copy trading notification (its texts in the `copy` section)? */
export function isCopyNote(item: StoredNotification): boolean {
  return item.titleKey?.startsWith('copyTrading.') ?? false;
}
