/**
 * The chart section: the eight periods, six forms of the prices (kept per device), indicators,
 * a crosshair readout.
 * History comes over HTTP and the forming candle from the websocket; the chart itself lives
 * in a {@link ChartController} created once and removed on unmount.
 */
import { useEffect, useEffectEvent, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { HorizontalLineIcon, PencilIcon, RayIcon, TrashIcon, TrendLineIcon, ZoneIcon } from '@/components/icons';
import { ErrorState, Spinner } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatDecimal, formatVolume } from '@/lib/format';
import { StorageKey, readKey, writeKey } from '@/lib/storage';
import { ws } from '@/lib/ws';
import type { CandleFrame } from '@/lib/ws-frames';
import { toast } from '@/stores/toast';

import { type CandleData, tradeApi } from '../api';
import { CHART_TYPES, type ChartCandle, type ChartContract, ChartController, type ChartType, isChartType } from '../chart/chart-controller';
import { DRAWINGS_PER_SYMBOL_MAX, DRAWING_KINDS, type DrawingKind, savedDrawings } from '../chart/drawing-store';
import type { DrawingState } from '../chart/drawings';
import type { IndicatorKey } from '../chart/indicators';

export const PERIODS = ['1m', '5m', '15m', '30m', '1h', '4h', '1d', '1w'] as const;
export type Period = (typeof PERIODS)[number];

export const PERIOD_MS: Record<Period, number> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1d': 86_400_000,
  '1w': 604_800_000,
};

/** The least time between two period changes (spec §4: too soon is refused). */
export const PERIOD_CHANGE_MIN_MS = 1_000;

export const INDICATORS: ReadonlyArray<{ key: IndicatorKey; label: string }> = [
  { key: 'ma', label: 'MA' },
  { key: 'ema', label: 'EMA' },
  { key: 'boll', label: 'BOLL' },
  { key: 'rsi', label: 'RSI' },
  { key: 'macd', label: 'MACD' },
];

const DRAWING_ICONS: Record<DrawingKind, typeof PencilIcon> = {
  hline: HorizontalLineIcon,
  trend: TrendLineIcon,
  ray: RayIcon,
  zone: ZoneIcon,
};

export function toChartCandle(c: CandleData): ChartCandle {
  return {
    time: c.time,
    open: Number(c.open),
    high: Number(c.high),
    low: Number(c.low),
    close: Number(c.close),
    volume: Number(c.volume),
  };
}

interface PriceChartProps {
  symbol: string;
  precision: number;
  contracts: ChartContract[];
}

export function PriceChart({ symbol, precision, contracts }: PriceChartProps) {
  const { t, i18n } = useTranslation();
  const container = useRef<HTMLDivElement>(null);
  const controller = useRef<ChartController | null>(null);
  const lastChange = useRef(0);
  const [period, setPeriod] = useState<Period>('1m');
  const [type, setType] = useState<ChartType>(() => {
    const saved = readKey(StorageKey.chartType);
    return isChartType(saved) ? saved : 'candles';
  });
  const [indicators, setIndicators] = useState<IndicatorKey[]>([]);
  const [state, setState] = useState<{ loading: boolean; error: string | null; candles: number }>({ loading: true, error: null, candles: 0 });
  const [reload, setReload] = useState(0);
  const [hover, setHover] = useState<ChartCandle | null>(null);
  const [latest, setLatest] = useState<ChartCandle | null>(null);
  const [drawOpen, setDrawOpen] = useState(false);
  const [drawing, setDrawing] = useState<DrawingState | null>(null);
  /** The drawing layer has been shown on this chart: later symbols must replace its drawings. */
  const drawingsShown = useRef(false);

  // The language the chart starts in, read when it is created, not a reason to create it again.
  const startLanguage = useEffectEvent(() => i18n.language);

  // The chart: created once for this symbol's precision, removed on unmount.
  useEffect(() => {
    if (!container.current) return undefined;
    const chart = new ChartController(container.current, { precision, language: startLanguage() });
    controller.current = chart;
    const offCrosshair = chart.onCrosshair(setHover);
    return () => {
      offCrosshair();
      chart.destroy();
      controller.current = null;
      drawingsShown.current = false;
    };
    // The language is applied by its own effect: recreating the chart for it would lose state.
  }, [precision]);

  useEffect(() => controller.current?.setLanguage(i18n.language), [i18n.language]);
  useEffect(() => controller.current?.setType(type), [type, precision]);
  useEffect(() => void controller.current?.setIndicators(indicators), [indicators, precision]);
  useEffect(() => controller.current?.setContracts(contracts), [contracts, precision, state.candles]);

  // The drawing layer loads when the tools are opened or the symbol has drawings kept.
  useEffect(() => {
    const chart = controller.current;
    if (!chart || !(drawOpen || drawingsShown.current || savedDrawings(symbol).length > 0)) return;
    drawingsShown.current = true;
    void chart.showDrawings(symbol, setDrawing);
  }, [symbol, precision, drawOpen]);

  // History, then the forming candle live; updates that arrive first are applied after it.
  useEffect(() => {
    const chart = controller.current;
    if (!chart) return undefined;
    const abort = new AbortController();
    let ready = false;
    const early: ChartCandle[] = [];
    setState({ loading: true, error: null, candles: 0 });
    const off = ws.subscribe<CandleFrame>({ channel: 'candles', symbol, period }, (frame) => {
      const candle = toChartCandle(frame.data);
      if (ready) chart.updateCandle(candle);
      else early.push(candle);
      setLatest(candle);
    });
    tradeApi
      .candles(symbol, period, abort.signal)
      .then((list) => {
        const candles = list.map(toChartCandle);
        chart.setCandles(candles, PERIOD_MS[period]);
        for (const candle of early) chart.updateCandle(candle);
        ready = true;
        setLatest((current) => current ?? candles[candles.length - 1] ?? null);
        setState({ loading: false, error: null, candles: chart.size() });
        performance.mark?.('chart-ready', { detail: { symbol, period, candles: chart.size() } });
      })
      .catch((error: unknown) => {
        if (abort.signal.aborted) return;
        setState({ loading: false, error: errorMessage(error, 'trade.chartFailed'), candles: 0 });
      });
    return () => {
      abort.abort();
      off();
    };
  }, [symbol, period, precision, reload]);

  const choosePeriod = (next: Period) => {
    if (next === period) return;
    const now = Date.now();
    if (now - lastChange.current < PERIOD_CHANGE_MIN_MS) {
      toast.error(t('trade.periodTooSoon'));
      return;
    }
    lastChange.current = now;
    setLatest(null);
    setPeriod(next);
  };

  const chooseType = (next: ChartType) => {
    setType(next);
    writeKey(StorageKey.chartType, next);
  };

  const toggleDrawTools = () => {
    if (drawOpen) controller.current?.setDrawingTool(null);
    setDrawOpen(!drawOpen);
  };

  const chooseTool = (kind: DrawingKind) => controller.current?.setDrawingTool(drawing?.tool === kind ? null : kind);

  const toggleIndicator = (key: IndicatorKey) =>
    setIndicators((current) => (current.includes(key) ? current.filter((k) => k !== key) : [...current, key]));

  // RSI and MACD each add a pane below the prices: the chart grows instead of squeezing them.
  const panes = indicators.filter((k) => k === 'rsi' || k === 'macd').length;
  const shown = hover ?? latest;
  const price = (value: number) => formatDecimal(value, i18n.language, precision);
  const drawHint = !drawOpen
    ? null
    : drawing?.tool
      ? t(drawing.tool === 'hline' ? 'trade.draw.hintOne' : 'trade.draw.hintTwo')
      : drawing?.selected
        ? t('trade.draw.hintSelected')
        : drawing?.full
          ? t('trade.draw.full', { max: DRAWINGS_PER_SYMBOL_MAX })
          : t('trade.draw.hintPick');
  const hint = drawHint ?? (type === 'baseline' ? t('trade.baselineHint') : null);
  return (
    <section className="chart-section" aria-label={t('trade.chart')}>
      <div className="chart-toolbar">
        <div className="chart-periods" role="group" aria-label={t('trade.period')}>
          {PERIODS.map((p) => (
            <button key={p} type="button" className="chip chip-small" aria-pressed={p === period} onClick={() => choosePeriod(p)}>
              {t(`trade.periods.${p}`)}
            </button>
          ))}
        </div>
        <div className="chart-options">
          <select
            className="select chart-type"
            aria-label={t('trade.chartType')}
            value={type}
            onChange={(e) => isChartType(e.target.value) && chooseType(e.target.value)}
          >
            {CHART_TYPES.map((key) => (
              <option key={key} value={key}>
                {t(`trade.chartTypes.${key}`)}
              </option>
            ))}
          </select>
          <button
            type="button"
            className="chip chip-small chip-icon"
            aria-pressed={drawOpen}
            aria-label={t('trade.draw.tools')}
            title={t('trade.draw.tools')}
            onClick={toggleDrawTools}
          >
            <PencilIcon width={14} height={14} />
          </button>
          <div role="group" aria-label={t('trade.indicators')} className="chart-indicators">
            {INDICATORS.map(({ key, label }) => (
              <button
                key={key}
                type="button"
                className="chip chip-small"
                aria-pressed={indicators.includes(key)}
                title={t(`trade.indicatorNames.${key}`)}
                aria-label={t(`trade.indicatorNames.${key}`)}
                onClick={() => toggleIndicator(key)}
              >
                {label}
              </button>
            ))}
          </div>
        </div>
      </div>
      <div className="chart-readout" aria-live="off">
        {shown && (
          <>
            <span>
              {t('trade.open')} <b className="num">{price(shown.open)}</b>
            </span>
            <span>
              {t('trade.high')} <b className="num">{price(shown.high)}</b>
            </span>
            <span>
              {t('trade.low')} <b className="num">{price(shown.low)}</b>
            </span>
            <span>
              {t('trade.close')} <b className={`num ${shown.close >= shown.open ? 'up' : 'down'}`}>{price(shown.close)}</b>
            </span>
            <span>
              {t('trade.volume')} <b className="num">{formatVolume(shown.volume, i18n.language)}</b>
            </span>
          </>
        )}
      </div>
      <div className="chart-frame" dir="ltr" style={{ '--panes': panes } as React.CSSProperties}>
        <div
          ref={container}
          className="chart-canvas"
          data-testid="price-chart"
          data-ready={!state.loading && !state.error ? 'true' : 'false'}
          data-candles={state.candles}
          data-period={period}
          data-type={type}
          data-indicators={indicators.join(',')}
          data-drawings={drawing?.count ?? 0}
        />
        {hint && (
          // Over the chart, not above it: a hint that came and went above would move the chart
          // under the trader's finger.
          <div className="chart-hint" dir={i18n.dir()} role="status">
            {hint}
          </div>
        )}
        {drawOpen && (
          <div className="draw-tools" role="toolbar" aria-label={t('trade.draw.tools')} aria-orientation="vertical">
            {DRAWING_KINDS.map((kind) => {
              const Icon = DRAWING_ICONS[kind];
              return (
                <button
                  key={kind}
                  type="button"
                  className="draw-tool"
                  aria-pressed={drawing?.tool === kind}
                  aria-label={t(`trade.draw.kinds.${kind}`)}
                  title={t(`trade.draw.kinds.${kind}`)}
                  disabled={!drawing || (drawing.full && drawing.tool !== kind)}
                  onClick={() => chooseTool(kind)}
                >
                  <Icon width={18} height={18} />
                </button>
              );
            })}
            <button
              type="button"
              className="draw-tool"
              aria-label={t('trade.draw.delete')}
              title={t('trade.draw.delete')}
              disabled={!drawing?.selected}
              onClick={() => controller.current?.deleteSelectedDrawing()}
            >
              <TrashIcon width={18} height={18} />
            </button>
          </div>
        )}
        {state.loading && (
          <div className="chart-overlay">
            <Spinner />
          </div>
        )}
        {state.error && (
          <div className="chart-overlay">
            <ErrorState text={state.error} onRetry={() => setReload((n) => n + 1)} />
          </div>
        )}
      </div>
    </section>
  );
}
