/**
 * Drawing tools over the price pane: horizontal lines, trend lines, rays and rectangle zones,
 * drawn as one lightweight-charts series primitive. A trader places them with the pointer
 * (mouse, pen or touch), selects one by touching it, drags it or one of its ends, and deletes
 * it; they are kept per symbol in this browser (drawing-store.ts).
 * Loaded the first time the tools are opened or a symbol with saved drawings is shown.
 */
import type {
  IPrimitivePaneRenderer,
  IPrimitivePaneView,
  ISeriesPrimitive,
  ISeriesPrimitiveAxisView,
  PrimitiveHoveredItem,
  SeriesAttachedParameter,
  Time,
} from 'lightweight-charts';

import { type Anchor, DRAWINGS_PER_SYMBOL_MAX, type Drawing, type DrawingKind, anchorsOf, saveDrawings, savedDrawings } from './drawing-store';

export interface Px {
  x: number;
  y: number;
}

/** What the layer needs from the chart: its element and conversions for pane 0. */
export interface DrawingHost {
  /** The element the chart was created in; pointer input is read from it. */
  element: HTMLElement;
  /** Pane 0's drawing area in CSS pixels (the price scale and lower panes excluded). */
  paneSize(): { width: number; height: number };
  timeToX(time: number): number | null;
  xToTime(x: number): number | null;
  priceToY(price: number): number | null;
  yToPrice(y: number): number | null;
  formatPrice(price: number): string;
  /** Lets the chart pan and zoom, or holds it still while a drawing is placed or moved. */
  setChartInteractive(on: boolean): void;
}

/** What the toolbar shows. */
export interface DrawingState {
  tool: DrawingKind | null;
  selected: boolean;
  count: number;
  full: boolean;
}

const COLOR = '#38bdf8';
const SELECTED = '#7dd3fc';
const ZONE_FILL = 'rgba(56, 189, 248, 0.12)';
const HANDLE_RADIUS = 4.5;
/** How far from a line a pointer still touches it, in CSS pixels. */
const REACH = { mouse: 7, touch: 16 } as const;
/** A press that moves less than this is a tap. */
const TAP_SLOP = 6;

// ----- geometry (pure) -------------------------------------------------------------------

export function distanceToSegment(p: Px, a: Px, b: Px): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length2 = dx * dx + dy * dy;
  const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2));
  return Math.hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

/** Where a ray from `a` through `b` leaves the box [0, width] × [0, height]. */
export function rayEnd(a: Px, b: Px, width: number, height: number): Px {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  if (dx === 0 && dy === 0) return b;
  const limits = [
    dx > 0 ? (width - a.x) / dx : dx < 0 ? -a.x / dx : Infinity,
    dy > 0 ? (height - a.y) / dy : dy < 0 ? -a.y / dy : Infinity,
  ];
  // At least as far as b, even when b lies outside the box.
  const t = Math.max(1, Math.min(...limits));
  return { x: a.x + t * dx, y: a.y + t * dy };
}

/**
 * How far `p` is from a drawing whose anchors sit at `at` on a pane of `width` × `height`:
 * 0 inside a zone, the distance to the line otherwise.
 */
export function distanceTo(kind: DrawingKind, at: readonly Px[], p: Px, width: number, height: number): number {
  const [a, b] = at;
  if (!a) return Infinity;
  switch (kind) {
    case 'hline':
      return Math.abs(p.y - a.y);
    case 'trend':
      return b ? distanceToSegment(p, a, b) : Infinity;
    case 'ray':
      return b ? distanceToSegment(p, a, rayEnd(a, b, width, height)) : Infinity;
    case 'zone': {
      if (!b) return Infinity;
      const [left, right] = [Math.min(a.x, b.x), Math.max(a.x, b.x)];
      const [top, bottom] = [Math.min(a.y, b.y), Math.max(a.y, b.y)];
      const dx = Math.max(left - p.x, 0, p.x - right);
      const dy = Math.max(top - p.y, 0, p.y - bottom);
      return Math.hypot(dx, dy);
    }
  }
}

/** The anchors moved by `dt` ms and `dp` in price. */
export function shifted(points: readonly Anchor[], dt: number, dp: number): Anchor[] {
  return points.map((p) => ({ time: p.time + dt, price: p.price + dp }));
}

// ----- the layer -------------------------------------------------------------------------

type Gesture =
  /** The first anchor of a two-point drawing is down; the second follows the pointer. */
  | { type: 'place'; pointerId: number; start: Px }
  /** A drawing (or one of its anchors, `handle`) follows the pointer. */
  | { type: 'move'; pointerId: number; id: string; handle: number | null; start: Px; origin: Anchor[]; moved: boolean };

let nextId = 0;
function newId(): string {
  nextId += 1;
  return `${Date.now().toString(36)}-${nextId}`;
}

export class DrawingLayer implements ISeriesPrimitive<Time> {
  private symbol = '';
  private drawings: Drawing[] = [];
  private selectedId: string | null = null;
  private tool: DrawingKind | null = null;
  /** A two-point drawing whose second anchor is not placed yet. */
  private draft: Drawing | null = null;
  private gesture: Gesture | null = null;
  /** The last press on the chart was the layer's (the chart's own click ignores it). */
  private tookPress = false;
  private requestUpdate: () => void = () => {};
  /** What the toolbar was last told, so that a drag does not re-render it on every move. */
  private told = '';
  private readonly views: readonly IPrimitivePaneView[];
  private labels: ISeriesPrimitiveAxisView[] = [];

  constructor(
    private readonly host: DrawingHost,
    private readonly onState: (state: DrawingState) => void,
  ) {
    const renderer: IPrimitivePaneRenderer = { draw: (target) => target.useMediaCoordinateSpace(({ context }) => this.draw(context)) };
    this.views = [{ zOrder: () => 'top', renderer: () => renderer }];
    const element = host.element;
    element.addEventListener('pointerdown', this.onPointerDown, true);
    element.addEventListener('pointermove', this.onPointerMove);
    element.addEventListener('pointerup', this.onPointerUp);
    element.addEventListener('pointercancel', this.onPointerCancel);
    // The page must not scroll under a finger that moves a drawing.
    element.addEventListener('touchmove', this.onTouchMove, { passive: false });
    window.addEventListener('keydown', this.onKey);
  }

  // ISeriesPrimitive
  attached(param: SeriesAttachedParameter<Time>): void {
    this.requestUpdate = param.requestUpdate;
  }

  detached(): void {
    this.requestUpdate = () => {};
  }

  paneViews(): readonly IPrimitivePaneView[] {
    return this.views;
  }

  priceAxisViews(): readonly ISeriesPrimitiveAxisView[] {
    return this.labels;
  }

  /** The pointer's look over the pane: a cross while a tool is armed, a hand over a drawing. */
  hitTest(x: number, y: number): PrimitiveHoveredItem | null {
    if (this.tool) return { externalId: 'drawing-tool', zOrder: 'top', cursorStyle: 'crosshair' };
    const hit = this.hitAt({ x, y }, REACH.mouse);
    return hit && { externalId: hit.drawing.id, zOrder: 'top', cursorStyle: hit.handle === null ? 'move' : 'grab', itemType: 'primitive' };
  }

  /** Shows `symbol`'s saved drawings. */
  load(symbol: string): void {
    this.symbol = symbol;
    this.drawings = savedDrawings(symbol);
    this.selectedId = null;
    this.cancel();
    this.changed(false);
  }

  /** Arms a tool (the next press places it), or disarms with null. */
  setTool(tool: DrawingKind | null): void {
    this.cancel();
    this.tool = tool !== null && this.drawings.length < DRAWINGS_PER_SYMBOL_MAX ? tool : null;
    if (this.tool) this.selectedId = null;
    this.changed(false);
  }

  deleteSelected(): void {
    if (this.selectedId === null) return;
    this.drawings = this.drawings.filter((d) => d.id !== this.selectedId);
    this.selectedId = null;
    this.changed(true);
  }

  /** The chart's click that ends a press the layer took is not the chart's. */
  tookLastPress(): boolean {
    return this.tookPress;
  }

  destroy(): void {
    const element = this.host.element;
    element.removeEventListener('pointerdown', this.onPointerDown, true);
    element.removeEventListener('pointermove', this.onPointerMove);
    element.removeEventListener('pointerup', this.onPointerUp);
    element.removeEventListener('pointercancel', this.onPointerCancel);
    element.removeEventListener('touchmove', this.onTouchMove);
    window.removeEventListener('keydown', this.onKey);
  }

  // ----- input ---------------------------------------------------------------------------

  private readonly onPointerDown = (event: PointerEvent): void => {
    const p = this.pointIn(event);
    this.tookPress = false;
    if (!p || (event.pointerType === 'mouse' && event.button !== 0)) return;
    const anchor = this.anchorAt(p);
    if (this.tool && anchor) {
      if (this.draft) {
        // The second tap of a two-point drawing.
        this.draft.points[1] = anchor;
        this.finishDraft();
      } else if (anchorsOf(this.tool) === 1) {
        this.add({ id: newId(), kind: this.tool, points: [anchor] });
      } else {
        this.draft = { id: newId(), kind: this.tool, points: [anchor, { ...anchor }] };
        this.gesture = { type: 'place', pointerId: event.pointerId, start: p };
      }
      this.take(event);
      return;
    }
    const hit = this.hitAt(p, event.pointerType === 'touch' ? REACH.touch : REACH.mouse);
    if (!hit) {
      if (this.selectedId !== null) {
        this.selectedId = null;
        this.changed(false);
      }
      return;
    }
    this.selectedId = hit.drawing.id;
    this.gesture = {
      type: 'move',
      pointerId: event.pointerId,
      id: hit.drawing.id,
      handle: hit.handle,
      start: p,
      origin: hit.drawing.points.map((a) => ({ ...a })),
      moved: false,
    };
    this.take(event);
    this.changed(false);
  };

  private readonly onPointerMove = (event: PointerEvent): void => {
    const p = this.pointIn(event, true);
    if (!p) return;
    const gesture = this.gesture;
    if (this.draft && (!gesture || gesture.pointerId === event.pointerId)) {
      // The second anchor follows the pointer, pressed (drag to draw) or hovering (tap, tap).
      const anchor = this.anchorAt(p);
      if (anchor) this.draft.points[1] = anchor;
      this.requestUpdate();
      return;
    }
    if (gesture?.type !== 'move' || gesture.pointerId !== event.pointerId) return;
    const drawing = this.drawings.find((d) => d.id === gesture.id);
    if (!drawing) return;
    if (!gesture.moved && Math.hypot(p.x - gesture.start.x, p.y - gesture.start.y) < TAP_SLOP) return;
    gesture.moved = true;
    if (gesture.handle !== null) {
      const anchor = this.anchorAt(p);
      if (anchor) drawing.points[gesture.handle] = anchor;
    } else {
      const from = this.anchorAt(gesture.start);
      const to = this.anchorAt(p);
      if (from && to) drawing.points = shifted(gesture.origin, to.time - from.time, to.price - from.price);
    }
    this.changed(false);
  };

  private readonly onPointerUp = (event: PointerEvent): void => {
    if (this.tookPress) this.host.setChartInteractive(true);
    const gesture = this.gesture;
    if (!gesture || gesture.pointerId !== event.pointerId) return;
    this.gesture = null;
    if (gesture.type === 'place') {
      const p = this.pointIn(event, true);
      // A drag draws in one stroke; a tap waits for the second tap.
      if (p && Math.hypot(p.x - gesture.start.x, p.y - gesture.start.y) >= TAP_SLOP) this.finishDraft();
      return;
    }
    if (gesture.moved) this.changed(true);
  };

  private readonly onPointerCancel = (event: PointerEvent): void => {
    const gesture = this.gesture;
    if (!gesture || gesture.pointerId !== event.pointerId) return;
    this.gesture = null;
    this.host.setChartInteractive(true);
    if (gesture.type === 'move') {
      const drawing = this.drawings.find((d) => d.id === gesture.id);
      if (drawing) drawing.points = gesture.origin;
    } else {
      this.draft = null;
    }
    this.changed(false);
  };

  private readonly onTouchMove = (event: TouchEvent): void => {
    if (this.gesture) event.preventDefault();
  };

  private readonly onKey = (event: KeyboardEvent): void => {
    const target = event.target as HTMLElement | null;
    if (target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))) return;
    if (event.key === 'Escape' && (this.tool || this.draft || this.selectedId)) {
      this.selectedId = null;
      this.setTool(null);
    } else if ((event.key === 'Delete' || event.key === 'Backspace') && this.selectedId) {
      event.preventDefault();
      this.deleteSelected();
    }
  };

  /** The press is the layer's: the chart neither pans nor sees it as its own click. */
  private take(event: PointerEvent): void {
    this.tookPress = true;
    this.host.setChartInteractive(false);
    // No compatibility mouse events follow, so the chart starts no pan of its own.
    event.preventDefault();
    this.host.element.setPointerCapture?.(event.pointerId);
    this.requestUpdate();
  }

  /** The pointer in pane 0's coordinates; null outside it (unless `anywhere`, while dragging). */
  private pointIn(event: PointerEvent, anywhere = false): Px | null {
    const box = this.host.element.getBoundingClientRect();
    const p = { x: event.clientX - box.left, y: event.clientY - box.top };
    const { width, height } = this.host.paneSize();
    if (anywhere) return { x: Math.max(0, Math.min(width, p.x)), y: Math.max(0, Math.min(height, p.y)) };
    return p.x >= 0 && p.x < width && p.y >= 0 && p.y < height ? p : null;
  }

  private anchorAt(p: Px): Anchor | null {
    const time = this.host.xToTime(p.x);
    const price = this.host.yToPrice(p.y);
    return time === null || price === null ? null : { time, price };
  }

  private pixels(drawing: Drawing): Px[] | null {
    const out: Px[] = [];
    for (const a of drawing.points) {
      const y = this.host.priceToY(a.price);
      const x = drawing.kind === 'hline' ? 0 : this.host.timeToX(a.time);
      if (x === null || y === null) return null;
      out.push({ x, y });
    }
    return out;
  }

  /** The topmost drawing within `reach` of `p`, and which of its anchors, if one. */
  private hitAt(p: Px, reach: number): { drawing: Drawing; handle: number | null } | null {
    const { width, height } = this.host.paneSize();
    let best: { drawing: Drawing; handle: number | null; distance: number } | null = null;
    for (const drawing of this.drawings) {
      const at = this.pixels(drawing);
      if (!at) continue;
      if (drawing.kind !== 'hline') {
        const handle = at.findIndex((a) => Math.hypot(p.x - a.x, p.y - a.y) <= reach);
        if (handle >= 0) return { drawing, handle };
      }
      const distance = distanceTo(drawing.kind, at, p, width, height);
      // Later drawings are drawn on top, so they win a tie.
      if (distance <= reach && (!best || distance <= best.distance)) best = { drawing, handle: null, distance };
    }
    return best;
  }

  // ----- changes -------------------------------------------------------------------------

  private add(drawing: Drawing): void {
    this.drawings = [...this.drawings, drawing];
    this.selectedId = drawing.id;
    this.tool = null;
    this.changed(true);
  }

  private finishDraft(): void {
    const draft = this.draft;
    this.draft = null;
    if (draft) this.add(draft);
  }

  private cancel(): void {
    if (this.gesture) this.host.setChartInteractive(true);
    this.gesture = null;
    this.draft = null;
  }

  private changed(save: boolean): void {
    if (save && this.symbol) saveDrawings(this.symbol, this.drawings);
    this.labels = this.drawings.filter((d) => d.kind === 'hline').map((d) => this.priceLabel(d));
    this.requestUpdate();
    const state: DrawingState = {
      tool: this.tool,
      selected: this.selectedId !== null,
      count: this.drawings.length,
      full: this.drawings.length >= DRAWINGS_PER_SYMBOL_MAX,
    };
    const told = JSON.stringify(state);
    if (told === this.told) return;
    this.told = told;
    this.onState(state);
  }

  private priceLabel(drawing: Drawing): ISeriesPrimitiveAxisView {
    return {
      coordinate: () => this.host.priceToY(drawing.points[0]!.price) ?? -100,
      text: () => this.host.formatPrice(drawing.points[0]!.price),
      textColor: () => '#0b1220',
      backColor: () => (drawing.id === this.selectedId ? SELECTED : COLOR),
    };
  }

  // ----- drawing -------------------------------------------------------------------------

  private draw(ctx: CanvasRenderingContext2D): void {
    const { width, height } = this.host.paneSize();
    const shown = this.draft ? [...this.drawings, this.draft] : this.drawings;
    for (const drawing of shown) {
      const at = this.pixels(drawing);
      if (!at) continue;
      const selected = drawing.id === this.selectedId || drawing === this.draft;
      ctx.save();
      ctx.strokeStyle = selected ? SELECTED : COLOR;
      ctx.lineWidth = selected ? 2 : 1.5;
      const [a, b] = at as [Px, Px | undefined];
      ctx.beginPath();
      switch (drawing.kind) {
        case 'hline':
          ctx.moveTo(0, a.y);
          ctx.lineTo(width, a.y);
          break;
        case 'trend':
          ctx.moveTo(a.x, a.y);
          ctx.lineTo(b!.x, b!.y);
          break;
        case 'ray': {
          const end = rayEnd(a, b!, width, height);
          ctx.moveTo(a.x, a.y);
          ctx.lineTo(end.x, end.y);
          break;
        }
        case 'zone':
          ctx.fillStyle = ZONE_FILL;
          ctx.rect(Math.min(a.x, b!.x), Math.min(a.y, b!.y), Math.abs(b!.x - a.x), Math.abs(b!.y - a.y));
          ctx.fill();
          break;
      }
      ctx.stroke();
      if (selected && drawing.kind !== 'hline') {
        ctx.fillStyle = '#0b1220';
        for (const h of at) {
          ctx.beginPath();
          ctx.arc(h.x, h.y, HANDLE_RADIUS, 0, Math.PI * 2);
          ctx.fill();
          ctx.stroke();
        }
      }
      ctx.restore();
    }
  }
}
