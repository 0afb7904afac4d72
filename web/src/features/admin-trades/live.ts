/**
 * The trades list kept live from the back-office's `adminTrade` frames, as pure functions:
 * - `opened`: on page 1, a contract that matches the filters goes on top (the total one more,
 *   the page as long as before); on other pages the rows stay as the admin reads them;
 * - `entered` and `settled`: the contract's row changes in place, wherever it is listed.
 * Applying a frame twice, or onto a list read after it, changes nothing more: a list read over
 * HTTP while frames arrived gets them applied again on top (see trades-page.tsx).
 */
import type { Page } from '@/lib/api-client';
import type { AdminTradeFrame } from '@/lib/ws-frames';
import type { TickRow } from '@/types/api';

import type { AdminContract, TradeFilter } from './api';

/**
 * An entry tick as it is read from an `entered` frame: its log index is `sequence` (a TickRow,
 * as the server sends it), or `index` (as a tick frame names it).
 */
type EntryTick = Omit<TickRow, 'sequence'> & { sequence?: number; index?: number };

/** What the page shows: its filters, page and page size. */
export interface TradesView {
  filter: TradeFilter;
  page: number;
  pageSize: number;
}

/** Would the server list this contract under these filters (as GET /api/admin/trades filters)? */
export function matchesFilter(c: AdminContract, f: TradeFilter): boolean {
  if (f.user !== null && c.user !== f.user) return false;
  if (f.symbol !== null && c.symbol !== f.symbol) return false;
  if (f.account !== null && c.account !== f.account) return false;
  if (f.status === 'open' && c.status !== 'open' && c.status !== 'waiting_entry') return false;
  if (f.status === 'settled' && c.status !== 'settled' && c.status !== 'void') return false;
  if (f.start !== null && c.acceptedAt < f.start) return false;
  if (f.end !== null && c.acceptedAt > f.end) return false;
  return true;
}

function entryOf(tick: EntryTick): TickRow {
  return { price: tick.price, time: tick.time, sequence: tick.sequence ?? tick.index ?? 0 };
}

/** The list after one frame, and the id of a row the frame put on it (to highlight). */
export function applyTradeFrame(list: Page<AdminContract>, frame: AdminTradeFrame, view: TradesView): { list: Page<AdminContract>; added: number | null } {
  const same = { list, added: null };
  switch (frame.kind) {
    case 'opened': {
      const c = frame.contract;
      if (view.page !== 1 || list.items.some((r) => r.id === c.id) || !matchesFilter(c, view.filter)) return same;
      return { list: { items: [c, ...list.items].slice(0, view.pageSize), total: list.total + 1 }, added: c.id };
    }
    case 'entered': {
      const { id, entry, expiryAt } = frame.entered;
      const row = list.items.find((r) => r.id === id);
      // Only a contract still waiting takes its entry: a later state is never undone.
      if (!row || row.status !== 'waiting_entry') return same;
      const entered: AdminContract = { ...row, entry: entryOf(entry), expiryAt, status: 'open' };
      return { list: { ...list, items: list.items.map((r) => (r.id === id ? entered : r)) }, added: null };
    }
    case 'settled': {
      const c = frame.contract;
      if (!list.items.some((r) => r.id === c.id)) return same;
      return { list: { ...list, items: list.items.map((r) => (r.id === c.id ? c : r)) }, added: null };
    }
    default:
      return same;
  }
}
