import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { DRAWINGS_PER_SYMBOL_MAX, savedDrawings } from './drawing-store';
import { type DrawingHost, DrawingLayer, type DrawingState } from './drawings';

/**
 * The layer against a stand-in chart: a 400 × 300 pane where x is seconds and y is
 * 1 000 - price, so every pointer position names its anchor exactly.
 */
/** Layers listen on the window: each test's is removed after it. */
const layers: DrawingLayer[] = [];

function setup() {
  const element = document.createElement('div');
  element.getBoundingClientRect = () => ({ left: 0, top: 0, right: 400, bottom: 300, width: 400, height: 300, x: 0, y: 0, toJSON: () => ({}) });
  document.body.append(element);
  const interactive: boolean[] = [];
  const host: DrawingHost = {
    element,
    paneSize: () => ({ width: 400, height: 300 }),
    timeToX: (time) => time / 1000,
    xToTime: (x) => x * 1000,
    priceToY: (price) => 1000 - price,
    yToPrice: (y) => 1000 - y,
    formatPrice: (price) => price.toFixed(2),
    setChartInteractive: (on) => interactive.push(on),
  };
  const states: DrawingState[] = [];
  const layer = new DrawingLayer(host, (state) => states.push(state));
  layer.load('BTCUSDT');
  layers.push(layer);
  const fire = (type: string, x: number, y: number, pointerType = 'mouse') => {
    const event = new MouseEvent(type, { clientX: x, clientY: y, bubbles: true, cancelable: true, button: 0 });
    Object.assign(event, { pointerId: 1, pointerType });
    element.dispatchEvent(event);
    return event;
  };
  const tap = (x: number, y: number, pointerType?: string) => {
    const down = fire('pointerdown', x, y, pointerType);
    fire('pointerup', x, y, pointerType);
    return down;
  };
  const drag = (from: [number, number], to: [number, number]) => {
    fire('pointerdown', ...from);
    fire('pointermove', (from[0] + to[0]) / 2, (from[1] + to[1]) / 2);
    fire('pointermove', ...to);
    fire('pointerup', ...to);
  };
  const last = () => states[states.length - 1]!;
  return { layer, tap, drag, fire, states, last, interactive, element };
}

describe('the drawing layer', () => {
  beforeEach(() => window.localStorage.clear());
  afterEach(() => {
    for (const layer of layers.splice(0)) layer.destroy();
    document.body.replaceChildren();
  });

  it('places a level with a tap, keeps it for the symbol and selects it', () => {
    const { layer, tap, last, interactive } = setup();
    layer.setTool('hline');
    expect(last().tool).toBe('hline');
    const down = tap(100, 250);
    expect(down.defaultPrevented).toBe(true);
    expect(interactive).toEqual([false, true]);
    expect(last()).toEqual({ tool: null, selected: true, count: 1, full: false });
    expect(savedDrawings('BTCUSDT')).toEqual([{ id: expect.any(String), kind: 'hline', points: [{ time: 100_000, price: 750 }] }]);
    expect(layer.tookLastPress()).toBe(true);
  });

  it('draws a trend line with a drag, and a zone with two taps', () => {
    const { layer, tap, drag } = setup();
    layer.setTool('trend');
    drag([50, 200], [150, 100]);
    layer.setTool('zone');
    tap(200, 150);
    expect(savedDrawings('BTCUSDT')).toHaveLength(1);
    tap(300, 50);
    const [trend, zone] = savedDrawings('BTCUSDT');
    expect(trend!.points).toEqual([
      { time: 50_000, price: 800 },
      { time: 150_000, price: 900 },
    ]);
    expect(zone!.points).toEqual([
      { time: 200_000, price: 850 },
      { time: 300_000, price: 950 },
    ]);
  });

  it('moves a whole drawing, or one end of it, and leaves the chart to pan elsewhere', () => {
    const { layer, drag, tap } = setup();
    layer.setTool('trend');
    drag([50, 200], [150, 100]);
    tap(380, 20); // away from it: not the layer's press
    expect(layer.tookLastPress()).toBe(false);
    drag([100, 150], [120, 140]); // its middle: the whole line
    expect(savedDrawings('BTCUSDT')[0]!.points).toEqual([
      { time: 70_000, price: 810 },
      { time: 170_000, price: 910 },
    ]);
    drag([170, 90], [200, 90]); // its second end only
    expect(savedDrawings('BTCUSDT')[0]!.points).toEqual([
      { time: 70_000, price: 810 },
      { time: 200_000, price: 910 },
    ]);
  });

  it('a finger reaches further than a mouse', () => {
    const { layer, tap, last } = setup();
    layer.setTool('hline');
    tap(100, 100);
    tap(380, 20);
    expect(last().selected).toBe(false);
    tap(300, 112); // 12 px off: too far for a mouse
    expect(last().selected).toBe(false);
    tap(300, 112, 'touch');
    expect(last().selected).toBe(true);
  });

  it('deletes the selection with the key or the button, and Escape disarms', () => {
    const { layer, tap, last } = setup();
    layer.setTool('hline');
    tap(100, 100);
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Delete' }));
    expect(last().count).toBe(0);
    layer.setTool('ray');
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    expect(last().tool).toBeNull();
    layer.setTool('hline');
    tap(100, 100);
    layer.deleteSelected();
    expect(savedDrawings('BTCUSDT')).toEqual([]);
  });

  it('arms no tool once the symbol holds the most drawings', () => {
    const { layer, tap, last } = setup();
    for (let n = 0; n < DRAWINGS_PER_SYMBOL_MAX; n++) {
      layer.setTool('hline');
      tap(10, 10 + n * 5);
    }
    expect(last()).toMatchObject({ count: DRAWINGS_PER_SYMBOL_MAX, full: true });
    layer.setTool('trend');
    expect(last().tool).toBeNull();
  });
});
