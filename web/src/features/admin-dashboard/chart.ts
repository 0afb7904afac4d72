/**
 * The dashboard's daily chart, kept outside React: created once for its container, given a
 * series of days, removed on unmount. One histogram of the chosen figure per UTC day.
 */
import { ColorType, HistogramSeries, type IChartApi, type ISeriesApi, type UTCTimestamp, createChart } from 'lightweight-charts';

const COLORS = { background: '#131722', text: '#8b93a7', grid: '#1e2433', border: '#262d3d', up: '#16c784', down: '#f6465d', bar: '#f0b90b' };

export interface DayPoint {
  /** The day's start, ms since the epoch (UTC). */
  day: number;
  value: number;
}

export class DailyChart {
  private readonly chart: IChartApi;
  private readonly series: ISeriesApi<'Histogram'>;

  constructor(container: HTMLElement) {
    this.chart = createChart(container, {
      autoSize: true,
      layout: { background: { type: ColorType.Solid, color: COLORS.background }, textColor: COLORS.text, fontFamily: 'system-ui, sans-serif' },
      grid: { vertLines: { color: COLORS.grid }, horzLines: { color: COLORS.grid } },
      rightPriceScale: { borderColor: COLORS.border },
      timeScale: { borderColor: COLORS.border, timeVisible: false },
      handleScroll: false,
      handleScale: false,
    });
    this.series = this.chart.addSeries(HistogramSeries, { color: COLORS.bar, priceFormat: { type: 'price', precision: 2, minMove: 0.01 } });
  }

  /** Shows `points`; a signed figure (the house's result) is green above zero, red below. */
  show(points: readonly DayPoint[], signed: boolean, precision: number): void {
    this.series.applyOptions({ priceFormat: { type: 'price', precision, minMove: 10 ** -precision } });
    this.series.setData(
      points.map((p) => ({
        time: Math.floor(p.day / 1000) as UTCTimestamp,
        value: p.value,
        color: signed ? (p.value >= 0 ? COLORS.up : COLORS.down) : COLORS.bar,
      })),
    );
    this.chart.timeScale().fitContent();
  }

  remove(): void {
    this.chart.remove();
  }
}
