/**
 * The drawings a trader keeps on the price chart, per symbol, in this browser's storage.
 * Small on purpose: the trade page reads it to know whether the drawing layer must load.
 * Anchors are a time (ms) and a price, so a drawing stays where it was put when the period or
 * the chart's form changes.
 */
import { StorageKey, readJson, writeKey } from '@/lib/storage';

export const DRAWING_KINDS = ['hline', 'trend', 'ray', 'zone'] as const;
export type DrawingKind = (typeof DRAWING_KINDS)[number];

/** A point of a drawing: time in ms, price in the product's units. */
export interface Anchor {
  time: number;
  price: number;
}

export interface Drawing {
  id: string;
  kind: DrawingKind;
  /** One anchor for a horizontal line, two for the others. */
  points: Anchor[];
}

/** Storage is small and shared: a symbol keeps at most this many drawings. */
export const DRAWINGS_PER_SYMBOL_MAX = 50;

/** How many anchors a drawing of this kind has. */
export function anchorsOf(kind: DrawingKind): number {
  return kind === 'hline' ? 1 : 2;
}

function isDrawing(value: unknown): value is Drawing {
  if (typeof value !== 'object' || value === null) return false;
  const d = value as Partial<Drawing>;
  return (
    typeof d.id === 'string' &&
    DRAWING_KINDS.includes(d.kind as DrawingKind) &&
    Array.isArray(d.points) &&
    d.points.length === anchorsOf(d.kind as DrawingKind) &&
    d.points.every((p: unknown) => {
      const a = p as Partial<Anchor> | null;
      return a !== null && typeof a === 'object' && Number.isFinite(a.time) && Number.isFinite(a.price);
    })
  );
}

function readAll(): Record<string, unknown> {
  const all = readJson<unknown>(StorageKey.chartDrawings);
  return typeof all === 'object' && all !== null && !Array.isArray(all) ? (all as Record<string, unknown>) : {};
}

/** The drawings kept for `symbol`; whatever is unreadable is left out. */
export function savedDrawings(symbol: string): Drawing[] {
  const list = readAll()[symbol];
  return Array.isArray(list) ? list.filter(isDrawing).slice(0, DRAWINGS_PER_SYMBOL_MAX) : [];
}

/** Keeps `drawings` for `symbol` (none removes the symbol's entry). */
export function saveDrawings(symbol: string, drawings: readonly Drawing[]): void {
  const all = readAll();
  if (drawings.length === 0) delete all[symbol];
  else all[symbol] = drawings.slice(0, DRAWINGS_PER_SYMBOL_MAX);
  writeKey(StorageKey.chartDrawings, Object.keys(all).length === 0 ? null : JSON.stringify(all));
}
