/**
 * The price chart, kept outside React: created once for its container, fed candles and
 * updates, removed on unmount. React only calls its methods.
 *
 * Pane 0 holds candles (or a line of closes), volume, MA, EMA and Bollinger bands; RSI and
 * MACD get panes of their own. The user's open contracts are drawn as markers at their entry
 * and dashed price lines at their entry price.
 */
import {
  CandlestickSeries,
  ColorType,
  CrosshairMode,
  HistogramSeries,
  type IChartApi,
  type IPriceLine,
  type ISeriesApi,
  type ISeriesMarkersPluginApi,
  LineSeries,
  LineStyle,
  type SeriesMarker,
  type Time,
  TickMarkType,
  type UTCTimestamp,
  createChart,
  createSeriesMarkers,
} from 'lightweight-charts';

import type { IndicatorKey, Study } from './indicators';

export const COLORS = {
  background: '#131722',
  text: '#8b93a7',
  grid: '#1e2433',
  border: '#262d3d',
  up: '#16c784',
  down: '#f6465d',
  line: '#f0b90b',
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

export type ChartType = 'candles' | 'line';

type AnySeries = ISeriesApi<'Line'> | ISeriesApi<'Histogram'>;

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

export class ChartController {
  private readonly chart: IChartApi;
  private readonly candleSeries: ISeriesApi<'Candlestick'>;
  private readonly lineSeries: ISeriesApi<'Line'>;
  private readonly volumeSeries: ISeriesApi<'Histogram'>;
  private readonly markers: ISeriesMarkersPluginApi<Time>[];
  private priceLines: Array<{ series: ISeriesApi<'Candlestick'> | ISeriesApi<'Line'>; line: IPriceLine }> = [];
  private candles: ChartCandle[] = [];
  private readonly byTime = new Map<number, ChartCandle>();
  private studies: ActiveStudy[] = [];
  private wanted: IndicatorKey[] = [];
  private periodMs = 60_000;
  private language: string;
  private destroyed = false;

  constructor(container: HTMLElement, options: ChartOptions) {
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
    const priceFormat = { type: 'price' as const, precision: options.precision, minMove: 10 ** -options.precision };
    this.candleSeries = this.chart.addSeries(CandlestickSeries, {
      upColor: COLORS.up,
      downColor: COLORS.down,
      borderVisible: false,
      wickUpColor: COLORS.up,
      wickDownColor: COLORS.down,
      priceFormat,
    });
    this.lineSeries = this.chart.addSeries(LineSeries, { color: COLORS.line, lineWidth: 2, visible: false, priceFormat });
    this.volumeSeries = this.chart.addSeries(HistogramSeries, {
      priceScaleId: 'volume',
      priceFormat: { type: 'volume' },
      lastValueVisible: false,
      priceLineVisible: false,
    });
    this.chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.82, bottom: 0 } });
    this.markers = [createSeriesMarkers(this.candleSeries, []), createSeriesMarkers(this.lineSeries, [])];
  }

  /** Replaces all candles (a new symbol or period) and recomputes the indicators. */
  setCandles(candles: ChartCandle[], periodMs: number): void {
    if (this.destroyed) return;
    this.periodMs = periodMs;
    this.candles = [...candles].sort((a, b) => a.time - b.time);
    this.byTime.clear();
    for (const c of this.candles) this.byTime.set(c.time, c);
    this.candleSeries.setData(this.candles.map((c) => ({ time: seconds(c.time), open: c.open, high: c.high, low: c.low, close: c.close })));
    this.lineSeries.setData(this.candles.map((c) => ({ time: seconds(c.time), value: c.close })));
    this.volumeSeries.setData(this.candles.map((c) => this.volumeBar(c)));
    this.rebuildStudies();
    const bars = Math.max(30, Math.floor(this.chart.timeScale().width() / 9));
    this.chart.timeScale().setVisibleLogicalRange({ from: this.candles.length - bars, to: this.candles.length + 3 });
  }

  /** The forming candle moved, or a new one began. Older candles are ignored. */
  updateCandle(candle: ChartCandle): void {
    if (this.destroyed) return;
    const last = this.candles[this.candles.length - 1];
    if (last && candle.time < last.time) return;
    if (last && candle.time === last.time) this.candles[this.candles.length - 1] = candle;
    else this.candles.push(candle);
    this.byTime.set(candle.time, candle);
    const time = seconds(candle.time);
    this.candleSeries.update({ time, open: candle.open, high: candle.high, low: candle.low, close: candle.close });
    this.lineSeries.update({ time, value: candle.close });
    this.volumeSeries.update(this.volumeBar(candle));
    const replace = last !== undefined && candle.time === last.time;
    for (const active of this.studies) this.feed(active, candle, replace);
  }

  setType(type: ChartType): void {
    this.candleSeries.applyOptions({ visible: type === 'candles' });
    this.lineSeries.applyOptions({ visible: type === 'line' });
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
    for (const { series, line } of this.priceLines) series.removePriceLine(line);
    this.priceLines = [];
    const markers: SeriesMarker<Time>[] = contracts
      .map((c) => ({
        time: seconds(Math.floor(c.entryTime / this.periodMs) * this.periodMs),
        position: c.direction === 'up' ? ('belowBar' as const) : ('aboveBar' as const),
        shape: c.direction === 'up' ? ('arrowUp' as const) : ('arrowDown' as const),
        color: c.direction === 'up' ? COLORS.up : COLORS.down,
        text: String(c.id),
      }))
      .sort((a, b) => (a.time as number) - (b.time as number));
    for (const plugin of this.markers) plugin.setMarkers(markers);
    for (const c of contracts) {
      for (const series of [this.candleSeries, this.lineSeries]) {
        const line = series.createPriceLine({
          price: c.entryPrice,
          color: c.direction === 'up' ? COLORS.up : COLORS.down,
          lineStyle: LineStyle.Dashed,
          lineWidth: 1,
          axisLabelVisible: true,
          title: c.label,
        });
        this.priceLines.push({ series, line });
      }
    }
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
    this.chart.remove();
  }

  // ----- internals -----------------------------------------------------------------------

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
