import { beforeEach, describe, expect, it } from 'vitest';

import { StorageKey } from '@/lib/storage';

import { DRAWINGS_PER_SYMBOL_MAX, type Drawing, saveDrawings, savedDrawings } from './drawing-store';
import { distanceTo, distanceToSegment, rayEnd, shifted } from './drawings';

describe('drawing geometry', () => {
  it('measures the distance to a segment, not to its infinite line', () => {
    const a = { x: 0, y: 0 };
    const b = { x: 10, y: 0 };
    expect(distanceToSegment({ x: 5, y: 3 }, a, b)).toBe(3);
    expect(distanceToSegment({ x: 13, y: 4 }, a, b)).toBe(5);
    expect(distanceToSegment({ x: 2, y: 2 }, a, a)).toBeCloseTo(Math.SQRT2 * 2);
  });

  it('extends a ray to the edge of the pane it points at', () => {
    expect(rayEnd({ x: 10, y: 50 }, { x: 20, y: 40 }, 100, 100)).toEqual({ x: 60, y: 0 });
    expect(rayEnd({ x: 50, y: 50 }, { x: 40, y: 50 }, 100, 100)).toEqual({ x: 0, y: 50 });
    // A second point beyond the edge is still reached.
    expect(rayEnd({ x: 50, y: 50 }, { x: 150, y: 50 }, 100, 100)).toEqual({ x: 150, y: 50 });
  });

  it('finds a ray beyond its second point but a trend line only between its points', () => {
    const at = [
      { x: 10, y: 10 },
      { x: 20, y: 10 },
    ];
    const far = { x: 80, y: 12 };
    expect(distanceTo('trend', at, far, 100, 100)).toBeGreaterThan(50);
    expect(distanceTo('ray', at, far, 100, 100)).toBe(2);
  });

  it('counts a point inside a zone as on it, and a horizontal line at any time', () => {
    const at = [
      { x: 10, y: 40 },
      { x: 30, y: 20 },
    ];
    expect(distanceTo('zone', at, { x: 20, y: 30 }, 100, 100)).toBe(0);
    expect(distanceTo('zone', at, { x: 33, y: 44 }, 100, 100)).toBe(5);
    expect(distanceTo('hline', [{ x: 0, y: 40 }], { x: 95, y: 43 }, 100, 100)).toBe(3);
  });

  it('moves every anchor by the same time and price', () => {
    expect(
      shifted(
        [
          { time: 1_000, price: 10 },
          { time: 61_000, price: 12.5 },
        ],
        60_000,
        -0.5,
      ),
    ).toEqual([
      { time: 61_000, price: 9.5 },
      { time: 121_000, price: 12 },
    ]);
  });
});

describe('kept drawings', () => {
  beforeEach(() => window.localStorage.clear());

  const line = (n: number): Drawing => ({ id: `d${n}`, kind: 'trend', points: [{ time: n, price: 1 }, { time: n + 1, price: 2 }] });

  it('keeps drawings per symbol and removes a symbol with none left', () => {
    saveDrawings('BTCUSDT', [line(1)]);
    saveDrawings('EURUSD', [line(2), line(3)]);
    expect(savedDrawings('BTCUSDT')).toEqual([line(1)]);
    expect(savedDrawings('EURUSD')).toHaveLength(2);
    saveDrawings('BTCUSDT', []);
    expect(savedDrawings('BTCUSDT')).toEqual([]);
    expect(Object.keys(JSON.parse(window.localStorage.getItem(StorageKey.chartDrawings)!))).toEqual(['EURUSD']);
  });

  it('leaves out what it cannot read and keeps at most the limit', () => {
    window.localStorage.setItem(
      StorageKey.chartDrawings,
      JSON.stringify({
        BTCUSDT: [line(1), { id: 'x', kind: 'circle', points: [] }, { id: 'y', kind: 'hline', points: [{ time: 'soon', price: 1 }] }, null],
      }),
    );
    expect(savedDrawings('BTCUSDT')).toEqual([line(1)]);
    window.localStorage.setItem(StorageKey.chartDrawings, 'not json');
    expect(savedDrawings('BTCUSDT')).toEqual([]);
    saveDrawings('BTCUSDT', Array.from({ length: DRAWINGS_PER_SYMBOL_MAX + 5 }, (_, n) => line(n)));
    expect(savedDrawings('BTCUSDT')).toHaveLength(DRAWINGS_PER_SYMBOL_MAX);
  });
});
