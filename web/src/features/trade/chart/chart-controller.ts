/**
 * The price chart, kept outside React: created once for its container, fed candles and
 * updates, removed on unmount. React only calls its methods.
 *
 * Pane 0 holds the prices in one of six forms (candles, OHLC bars, Heikin-Ashi candles, a line,
 * an area or a baseline of closes), volume, MA, EMA and Bollinger bands; RSI and MACD get panes
 * of their own. The user's open contracts are drawn as markers at their entry and dashed price
 * lines at their entry price. Indicators are computed from the market's own closes whatever
 * the form shown.
 */
import {
  AreaSeries,
  BarSeries,
  BaselineSeries,
  CandlestickSeries,
  ColorType,
  CrosshairMode,
  HistogramSeries,
  type IChartApi,
  type IPriceLine,
  type ISeriesApi,
  type ISeriesMarkersPluginApi,
  LineSeries,
  type Logical,
  type MouseEventParams,
  LineStyle,
  type SeriesMarker,
  type Time,
  TickMarkType,
  type UTCTimestamp,
  createChart,
  createSeriesMarkers,
} from 'lightweight-charts';

import type { DrawingKind } from './drawing-store';
import type { DrawingHost, DrawingLayer, DrawingState } from './drawings';
import type { IndicatorKey, Study } from './indicators';

export const COLORS = {
  background: '#131722',
  text: '#8b93a7',
  grid: '#1e2433',
  border: '#262d3d',
  up: '#16c784',
  down: '#f6465d',
  line: '#f0b90b',
  areaTop: 'rgba(240, 185, 11, 0.28)',
  areaBottom: 'rgba(240, 185, 11, 0.02)',
  upFill: 'rgba(22, 199, 132, 0.28)',
  upFillEnd: 'rgba(22, 199, 132, 0.04)',
  downFill: 'rgba(246, 70, 93, 0.04)',
  downFillEnd: 'rgba(246, 70, 93, 0.28)',
  volumeUp: 'rgba(22, 199, 132, 0.35)',
  volumeDown: 'rgba(246, 70, 93, 0.35)',
  ma: '#f0b90b',
  ema: '#c084fc',
  boll: '#60a5fa',
  rsi: '#e879f9',
  macd: '#3b82f6',
  signal: '#f59e0b',
} as const;

/** A candle in chart units: time in ms, prices as numbers (display only). */
export interface ChartCandle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** An open contract as the chart draws it. */
export interface ChartContract {
  id: number;
  direction: 'up' | 'down';
  entryPrice: number;
  entryTime: number;
  /** Text beside the price line, e.g. "Buy Up 10.00". */
  label: string;
}

export interface ChartOptions {
  precision: number;
  language: string;
}

export const CHART_TYPES = ['candles', 'bars', 'heikinAshi', 'line', 'area', 'baseline'] as const;
export type ChartType = (typeof CHART_TYPES)[number];

export function isChartType(value: unknown): value is ChartType {
  return CHART_TYPES.includes(value as ChartType);
}

type AnySeries = ISeriesApi<'Line'> | ISeriesApi<'Histogram'>;
type PriceSeries = ISeriesApi<'Candlestick'> | ISeriesApi<'Bar'> | ISeriesApi<'Line'> | ISeriesApi<'Area'> | ISeriesApi<'Baseline'>;
type Ohlc = Pick<ChartCandle, 'open' | 'high' | 'low' | 'close'>;

/**
 * Heikin-Ashi candles of `candles`: each close the average of the bar's four prices, each
 * open the midpoint of the previous Heikin-Ashi body (the first bar's own body midpoint), the
 * high and low stretched to cover both.
 */
export function heikinAshi(candles: readonly Ohlc[]): Ohlc[] {
  const out: Ohlc[] = [];
  for (const c of candles) out.push(heikinAshiNext(out[out.length - 1], c));
  return out;
}

function bar(timeMs: number, c: Ohlc) {
  return { time: seconds(timeMs), open: c.open, high: c.high, low: c.low, close: c.close };
}

function heikinAshiNext(previous: Ohlc | undefined, c: Ohlc): Ohlc {
  const close = (c.open + c.high + c.low + c.close) / 4;
  const open = previous ? (previous.open + previous.close) / 2 : (c.open + c.close) / 2;
  return { open, high: Math.max(c.high, open, close), low: Math.min(c.low, open, close), close };
}

interface ActiveStudy {
  key: IndicatorKey;
  study: Study;
  series: Record<string, AnySeries>;
}

const seconds = (ms: number) => Math.floor(ms / 1000) as UTCTimestamp;

/** The indicator math module, fetched the first time an indicator is turned on. */
let studiesModule: Promise<typeof import('./indicators')> | null = null;
function loadStudies() {
  studiesModule ??= import('./indicators');
  return studiesModule;
}

/** The drawing tools, fetched the first time they are opened or a symbol has drawings. */
let drawingsModule: Promise<typeof import('./drawings')> | null = null;
function loadDrawings() {
  drawingsModule ??= import('./drawings');
  return drawingsModule;
}

export class ChartController {
  private readonly chart: IChartApi;
  private readonly priceFormat: { type: 'price'; precision: number; minMove: number };
  private type: ChartType = 'candles';
  private prices: PriceSeries;
  private markers: ISeriesMarkersPluginApi<Time>;
  private readonly volumeSeries: ISeriesApi<'Histogram'>;
  private priceLines: IPriceLine[] = [];
  private contracts: ChartContract[] = [];
  /** The baseline's level: chosen by a tap on the chart, else the newest contract's entry. */
  private chosenBaseline: number | null = null;
  private candles: ChartCandle[] = [];
  /** Heikin-Ashi candles of `candles`, kept only while that form is shown. */
  private smoothed: Ohlc[] = [];
  private readonly byTime = new Map<number, ChartCandle>();
  private studies: ActiveStudy[] = [];
  private wanted: IndicatorKey[] = [];
  private periodMs = 60_000;
  private language: string;
  private destroyed = false;
  private readonly container: HTMLElement;
  private drawings: DrawingLayer | null = null;
  private drawingsReady: Promise<DrawingLayer | null> | null = null;

  constructor(container: HTMLElement, options: ChartOptions) {
    this.container = container;
    this.language = options.language;
    this.chart = createChart(container, {
      autoSize: true,
      layout: {
        background: { type: ColorType.Solid, color: COLORS.background },
        textColor: COLORS.text,
        fontFamily: 'system-ui, sans-serif',
        panes: { separatorColor: COLORS.border },
      },
      grid: { vertLines: { color: COLORS.grid }, horzLines: { color: COLORS.grid } },
      crosshair: { mode: CrosshairMode.Normal },
      rightPriceScale: { borderColor: COLORS.border },
      timeScale: {
        borderColor: COLORS.border,
        timeVisible: true,
        secondsVisible: false,
        rightOffset: 4,
        tickMarkFormatter: (time: Time, type: TickMarkType) => this.tickMark(time as number, type),
      },
      localization: { timeFormatter: (time: Time) => this.crosshairTime(time as number) },
    });
    this.priceFormat = { type: 'price', precision: options.precision, minMove: 10 ** -options.precision };
    this.prices = this.addPrices(this.type);
    this.markers = createSeriesMarkers(this.prices, []);
    this.chart.subscribeClick(this.onClick);
    this.volumeSeries = this.chart.addSeries(HistogramSeries, {
      priceScaleId: 'volume',
      priceFormat: { type: 'volume' },
      lastValueVisible: false,
      priceLineVisible: false,
    });
    this.chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.82, bottom: 0 } });
  }

  /** Replaces all candles (a new symbol or period) and recomputes the indicators. */
  setCandles(candles: ChartCandle[], periodMs: number): void {
    if (this.destroyed) return;
    this.periodMs = periodMs;
    // A tapped baseline level belongs to the prices it was chosen on, not to the next symbol.
    this.chosenBaseline = null;
    this.candles = [...candles].sort((a, b) => a.time - b.time);
    this.byTime.clear();
    for (const c of this.candles) this.byTime.set(c.time, c);
    this.fillPrices();
    this.volumeSeries.setData(this.candles.map((c) => this.volumeBar(c)));
    this.rebuildStudies();
    const bars = Math.max(30, Math.floor(this.chart.timeScale().width() / 9));
    this.chart.timeScale().setVisibleLogicalRange({ from: this.candles.length - bars, to: this.candles.length + 3 });
    this.applyBaseline();
  }

  /** The forming candle moved, or a new one began. Older candles are ignored. */
  updateCandle(candle: ChartCandle): void {
    if (this.destroyed) return;
    const last = this.candles[this.candles.length - 1];
    if (last && candle.time < last.time) return;
    if (last && candle.time === last.time) this.candles[this.candles.length - 1] = candle;
    else this.candles.push(candle);
    this.byTime.set(candle.time, candle);
    const replace = last !== undefined && candle.time === last.time;
    this.updatePrices(candle, replace);
    this.volumeSeries.update(this.volumeBar(candle));
    for (const active of this.studies) this.feed(active, candle, replace);
  }

  /** Shows the prices in another form, from the candles already held (no new request). */
  setType(type: ChartType): void {
    if (this.destroyed || type === this.type) return;
    this.type = type;
    this.markers.detach();
    if (this.drawings) this.prices.detachPrimitive(this.drawings);
    this.chart.removeSeries(this.prices);
    this.priceLines = [];
    this.prices = this.addPrices(type);
    // Drawn first, under the volume bars and the indicator lines, as when the chart began.
    this.prices.setSeriesOrder(0);
    this.markers = createSeriesMarkers(this.prices, []);
    if (this.drawings) this.prices.attachPrimitive(this.drawings);
    this.fillPrices();
    this.drawContracts();
  }

  /** Shows exactly these indicators (the math is loaded the first time). */
  async setIndicators(keys: IndicatorKey[]): Promise<void> {
    this.wanted = keys;
    for (const active of this.studies.filter((s) => !keys.includes(s.key))) this.removeStudy(active);
    this.studies = this.studies.filter((s) => keys.includes(s.key));
    const missing = keys.filter((k) => !this.studies.some((s) => s.key === k));
    if (missing.length === 0) return;
    const { createStudy } = await loadStudies();
    for (const key of missing) {
      if (this.destroyed || !this.wanted.includes(key) || this.studies.some((s) => s.key === key)) continue;
      const active: ActiveStudy = { key, study: createStudy(key), series: this.addStudySeries(key) };
      this.studies.push(active);
      this.fill(active);
    }
    this.layoutPanes();
  }

  /** Draws the user's open contracts on this symbol. */
  setContracts(contracts: ChartContract[]): void {
    if (this.destroyed) return;
    this.contracts = contracts;
    this.drawContracts();
    this.applyBaseline();
  }

  /** Shows `symbol`'s drawings and lets the trader draw (the tools are loaded the first time). */
  async showDrawings(symbol: string, onState: (state: DrawingState) => void): Promise<void> {
    this.drawingsReady ??= loadDrawings().then(({ DrawingLayer }) => {
      if (this.destroyed) return null;
      const layer = new DrawingLayer(this.drawingHost(), onState);
      this.prices.attachPrimitive(layer);
      this.drawings = layer;
      return layer;
    });
    const layer = await this.drawingsReady;
    if (!this.destroyed) layer?.load(symbol);
  }

  /** Arms a drawing tool for the next press on the chart, or disarms it. */
  setDrawingTool(tool: DrawingKind | null): void {
    this.drawings?.setTool(tool);
  }

  deleteSelectedDrawing(): void {
    this.drawings?.deleteSelected();
  }

  /** Calls `handler` with the candle under the crosshair, or null when it leaves. */
  onCrosshair(handler: (candle: ChartCandle | null) => void): () => void {
    const listener = (param: { time?: Time }) => {
      const candle = param.time === undefined ? null : (this.byTime.get((param.time as number) * 1000) ?? null);
      handler(candle);
    };
    this.chart.subscribeCrosshairMove(listener);
    return () => {
      if (!this.destroyed) this.chart.unsubscribeCrosshairMove(listener);
    };
  }

  setLanguage(language: string): void {
    this.language = language;
    // New formatter functions make the chart redraw its labels in the new language.
    this.chart.applyOptions({
      localization: { timeFormatter: (time: Time) => this.crosshairTime(time as number) },
      timeScale: { tickMarkFormatter: (time: Time, type: TickMarkType) => this.tickMark(time as number, type) },
    });
  }

  /** How many candles the chart holds (tests, the benchmark). */
  size(): number {
    return this.candles.length;
  }

  destroy(): void {
    this.destroyed = true;
    this.drawings?.destroy();
    this.chart.unsubscribeClick(this.onClick);
    this.chart.remove();
  }

  // ----- internals -----------------------------------------------------------------------

  private addPrices(type: ChartType): PriceSeries {
    const priceFormat = this.priceFormat;
    switch (type) {
      case 'candles':
      case 'heikinAshi':
        return this.chart.addSeries(CandlestickSeries, {
          upColor: COLORS.up,
          downColor: COLORS.down,
          borderVisible: false,
          wickUpColor: COLORS.up,
          wickDownColor: COLORS.down,
          priceFormat,
        });
      case 'bars':
        return this.chart.addSeries(BarSeries, { upColor: COLORS.up, downColor: COLORS.down, thinBars: false, priceFormat });
      case 'line':
        return this.chart.addSeries(LineSeries, { color: COLORS.line, lineWidth: 2, priceFormat });
      case 'area':
        return this.chart.addSeries(AreaSeries, {
          lineColor: COLORS.line,
          lineWidth: 2,
          topColor: COLORS.areaTop,
          bottomColor: COLORS.areaBottom,
          priceFormat,
        });
      case 'baseline':
        return this.chart.addSeries(BaselineSeries, {
          baseValue: { type: 'price', price: this.baseValue() },
          topLineColor: COLORS.up,
          topFillColor1: COLORS.upFill,
          topFillColor2: COLORS.upFillEnd,
          bottomLineColor: COLORS.down,
          bottomFillColor1: COLORS.downFill,
          bottomFillColor2: COLORS.downFillEnd,
          lineWidth: 2,
          priceFormat,
        });
    }
  }

  /**
   * The price series as what it is fed: bars (candles, OHLC bars and Heikin-Ashi all take
   * open, high, low and close) or single values (line, area and baseline take the close).
   */
  private fed(): { bars: ISeriesApi<'Candlestick'> } | { values: ISeriesApi<'Line'> } {
    return this.type === 'candles' || this.type === 'bars' || this.type === 'heikinAshi'
      ? { bars: this.prices as ISeriesApi<'Candlestick'> }
      : { values: this.prices as ISeriesApi<'Line'> };
  }

  private fillPrices(): void {
    this.smoothed = this.type === 'heikinAshi' ? heikinAshi(this.candles) : [];
    const shown = this.type === 'heikinAshi' ? this.smoothed : this.candles;
    const fed = this.fed();
    if ('bars' in fed) fed.bars.setData(this.candles.map((c, i) => bar(c.time, shown[i]!)));
    else fed.values.setData(this.candles.map((c) => ({ time: seconds(c.time), value: c.close })));
    this.applyBaseline();
  }

  private updatePrices(candle: ChartCandle, replace: boolean): void {
    const fed = this.fed();
    if ('values' in fed) {
      fed.values.update({ time: seconds(candle.time), value: candle.close });
      return;
    }
    let ohlc: Ohlc = candle;
    if (this.type === 'heikinAshi') {
      if (replace) this.smoothed.pop();
      ohlc = heikinAshiNext(this.smoothed[this.smoothed.length - 1], candle);
      this.smoothed.push(ohlc);
    }
    fed.bars.update(bar(candle.time, ohlc));
  }

  /** The level a tap chose, else the newest open contract's entry, else the first close shown. */
  private baseValue(): number {
    if (this.chosenBaseline !== null) return this.chosenBaseline;
    const newest = this.contracts.reduce<ChartContract | undefined>((a, c) => (a && a.entryTime >= c.entryTime ? a : c), undefined);
    if (newest) return newest.entryPrice;
    const range = this.chart.timeScale().getVisibleLogicalRange();
    const first = this.candles[Math.max(0, Math.ceil(range?.from ?? 0))] ?? this.candles[0];
    return first?.close ?? 0;
  }

  private applyBaseline(): void {
    if (this.type !== 'baseline') return;
    (this.prices as ISeriesApi<'Baseline'>).applyOptions({ baseValue: { type: 'price', price: this.baseValue() } });
  }

  /** In the baseline form a tap on the prices chooses the level. */
  private readonly onClick = (param: MouseEventParams<Time>): void => {
    if (this.destroyed || this.type !== 'baseline' || !param.point || (param.paneIndex ?? 0) !== 0) return;
    if (this.drawings?.tookLastPress()) return;
    const price = this.prices.coordinateToPrice(param.point.y);
    if (price === null) return;
    this.chosenBaseline = Number(price);
    this.applyBaseline();
  };

  /** Pane 0 as the drawing layer sees it: times in ms and prices, to and from pixels. */
  private drawingHost(): DrawingHost {
    return {
      element: this.container,
      paneSize: () => ({ width: this.chart.timeScale().width(), height: this.chart.panes()[0]?.getHeight() ?? 0 }),
      timeToX: (time) => {
        const logical = this.timeToLogical(time);
        return logical === null ? null : this.logicalToX(logical);
      },
      xToTime: (x) => {
        const logical = this.xToLogical(x);
        return logical === null ? null : this.logicalToTime(logical);
      },
      priceToY: (price) => this.prices.priceToCoordinate(price),
      yToPrice: (y) => {
        const price = this.prices.coordinateToPrice(y);
        return price === null ? null : Number(price);
      },
      formatPrice: (price) => this.prices.priceFormatter().format(price),
      setChartInteractive: (on) => this.chart.applyOptions({ handleScroll: on, handleScale: on }),
    };
  }

  /**
   * A time's position in bars, fractional between two candles and counted in periods before
   * the first or after the last, so that a drawing may reach into the future.
   */
  private timeToLogical(time: number): number | null {
    const candles = this.candles;
    const last = candles.length - 1;
    if (last < 0) return null;
    let lo = 0;
    let hi = last;
    if (time < candles[0]!.time) return (time - candles[0]!.time) / this.periodMs;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (candles[mid]!.time <= time) lo = mid;
      else hi = mid - 1;
    }
    const at = candles[lo]!;
    const next = candles[lo + 1];
    return lo + (time - at.time) / (next ? next.time - at.time : this.periodMs);
  }

  private logicalToTime(logical: number): number | null {
    const candles = this.candles;
    const last = candles.length - 1;
    if (last < 0) return null;
    if (logical <= 0) return candles[0]!.time + logical * this.periodMs;
    if (logical >= last) return candles[last]!.time + (logical - last) * this.periodMs;
    const index = Math.floor(logical);
    const at = candles[index]!;
    return at.time + (logical - index) * (candles[index + 1]!.time - at.time);
  }

  /** The time scale is linear in bars: two whole bars' coordinates give any fraction's. */
  private barAxis(): { x0: number; spacing: number } | null {
    const scale = this.chart.timeScale();
    const x0 = scale.logicalToCoordinate(0 as Logical);
    const x1 = scale.logicalToCoordinate(1 as Logical);
    return x0 === null || x1 === null || x1 === x0 ? null : { x0, spacing: x1 - x0 };
  }

  private logicalToX(logical: number): number | null {
    const axis = this.barAxis();
    return axis && axis.x0 + logical * axis.spacing;
  }

  private xToLogical(x: number): number | null {
    const axis = this.barAxis();
    return axis && (x - axis.x0) / axis.spacing;
  }

  private drawContracts(): void {
    for (const line of this.priceLines) this.prices.removePriceLine(line);
    this.priceLines = [];
    const markers: SeriesMarker<Time>[] = this.contracts
      .map((c) => ({
        time: seconds(Math.floor(c.entryTime / this.periodMs) * this.periodMs),
        position: c.direction === 'up' ? ('belowBar' as const) : ('aboveBar' as const),
        shape: c.direction === 'up' ? ('arrowUp' as const) : ('arrowDown' as const),
        color: c.direction === 'up' ? COLORS.up : COLORS.down,
        text: String(c.id),
      }))
      .sort((a, b) => (a.time as number) - (b.time as number));
    this.markers.setMarkers(markers);
    for (const c of this.contracts) {
      const line = this.prices.createPriceLine({
        price: c.entryPrice,
        color: c.direction === 'up' ? COLORS.up : COLORS.down,
        lineStyle: LineStyle.Dashed,
        lineWidth: 1,
        axisLabelVisible: true,
        title: c.label,
      });
      this.priceLines.push(line);
    }
  }

  private volumeBar(c: ChartCandle) {
    return { time: seconds(c.time), value: c.volume, color: c.close >= c.open ? COLORS.volumeUp : COLORS.volumeDown };
  }

  private addStudySeries(key: IndicatorKey): Record<string, AnySeries> {
    const line = (color: string, pane = 0, style: LineStyle = LineStyle.Solid) =>
      this.chart.addSeries(
        LineSeries,
        { color, lineWidth: 1, lineStyle: style, priceLineVisible: false, lastValueVisible: false, crosshairMarkerVisible: false },
        pane,
      );
    switch (key) {
      case 'ma':
        return { value: line(COLORS.ma) };
      case 'ema':
        return { value: line(COLORS.ema) };
      case 'boll':
        return { upper: line(COLORS.boll), middle: line(COLORS.boll, 0, LineStyle.Dashed), lower: line(COLORS.boll) };
      case 'rsi': {
        const rsi = line(COLORS.rsi, this.chart.panes().length);
        for (const level of [70, 30]) {
          rsi.createPriceLine({ price: level, color: COLORS.border, lineStyle: LineStyle.Dotted, lineWidth: 1, axisLabelVisible: true, title: '' });
        }
        return { value: rsi };
      }
      case 'macd': {
        const pane = this.chart.panes().length;
        const histogram = this.chart.addSeries(HistogramSeries, { priceLineVisible: false, lastValueVisible: false }, pane);
        return { histogram, macd: line(COLORS.macd, pane), signal: line(COLORS.signal, pane) };
      }
    }
  }

  private removeStudy(active: ActiveStudy): void {
    for (const series of Object.values(active.series)) this.chart.removeSeries(series);
  }

  private rebuildStudies(): void {
    if (this.studies.length === 0) return;
    void loadStudies().then(({ createStudy }) => {
      if (this.destroyed) return;
      for (const active of this.studies) {
        active.study = createStudy(active.key);
        this.fill(active);
      }
    });
  }

  /** Feeds every candle to a fresh study and sets its series' data in one go. */
  private fill(active: ActiveStudy): void {
    const data: Record<string, Array<{ time: UTCTimestamp; value?: number; color?: string }>> = {};
    for (const name of active.study.lines) data[name] = [];
    for (const candle of this.candles) {
      const values = active.study.push(candle.close);
      for (const name of active.study.lines) data[name]!.push(this.point(name, candle.time, values[name] ?? null));
    }
    for (const name of active.study.lines) active.series[name]?.setData(data[name]!);
  }

  private feed(active: ActiveStudy, candle: ChartCandle, replace: boolean): void {
    const values = replace ? active.study.replace(candle.close) : active.study.push(candle.close);
    for (const name of active.study.lines) active.series[name]?.update(this.point(name, candle.time, values[name] ?? null));
  }

  private point(name: string, timeMs: number, value: number | null) {
    const time = seconds(timeMs);
    if (value === null || !Number.isFinite(value)) return { time };
    if (name === 'histogram') return { time, value, color: value >= 0 ? COLORS.volumeUp : COLORS.volumeDown };
    return { time, value };
  }

  /** The price pane takes most of the height; each indicator pane a quarter of it. */
  private layoutPanes(): void {
    const panes = this.chart.panes();
    panes.forEach((pane, index) => pane.setStretchFactor(index === 0 ? 4 : 1));
  }

  private crosshairTime(time: number): string {
    return new Intl.DateTimeFormat(this.intlLocale(), {
      month: 'short',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      ...(this.periodMs >= 86_400_000 ? { year: 'numeric', hour: undefined, minute: undefined } : {}),
    }).format(time * 1000);
  }

  private tickMark(time: number, type: TickMarkType): string {
    const options: Intl.DateTimeFormatOptions =
      type === TickMarkType.Year
        ? { year: 'numeric' }
        : type === TickMarkType.Month
          ? { month: 'short' }
          : type === TickMarkType.DayOfMonth
            ? { day: 'numeric', month: 'short' }
            : { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
    return new Intl.DateTimeFormat(this.intlLocale(), options).format(time * 1000);
  }

  private intlLocale(): string {
    return this.language === 'ar-AR' ? 'ar-u-nu-latn' : this.language;
  }
}
