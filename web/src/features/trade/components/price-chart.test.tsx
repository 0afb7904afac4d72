import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { StorageKey } from '@/lib/storage';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import type { DrawingState } from '../chart/drawings';
import { PriceChart } from './price-chart';

/** The chart itself needs a canvas: a stand-in records what the section asks of it. */
const chart = vi.hoisted(() => ({
  calls: [] as Array<[string, ...unknown[]]>,
  onState: null as ((state: DrawingState) => void) | null,
}));

vi.mock('../chart/chart-controller', async (importActual) => {
  const actual = await importActual<typeof import('../chart/chart-controller')>();
  class FakeController {
    constructor() {
      chart.calls.push(['create']);
    }
    setLanguage() {}
    setType(type: string) {
      chart.calls.push(['setType', type]);
    }
    setIndicators() {}
    setContracts() {}
    setCandles() {}
    updateCandle() {}
    size() {
      return 0;
    }
    onCrosshair() {
      return () => {};
    }
    async showDrawings(symbol: string, onState: (state: DrawingState) => void) {
      chart.calls.push(['showDrawings', symbol]);
      chart.onState = onState;
      onState({ tool: null, selected: false, count: 0, full: false });
    }
    setDrawingTool(tool: string | null) {
      chart.calls.push(['setDrawingTool', tool]);
      chart.onState?.({ tool: tool as DrawingState['tool'], selected: false, count: 0, full: false });
    }
    deleteSelectedDrawing() {
      chart.calls.push(['deleteSelectedDrawing']);
    }
    destroy() {}
  }
  return { ...actual, ChartController: FakeController };
});

beforeEach(() => {
  chart.calls = [];
  chart.onState = null;
  window.localStorage.clear();
  mockApi({ 'GET /api/markets/BTCUSDT/candles': () => ({ data: [] }) });
});

const section = () => renderAt(<PriceChart symbol="BTCUSDT" precision={2} contracts={[]} />);
const calls = (name: string) => chart.calls.filter(([n]) => n === name).map(([, ...args]) => args);

test('the chart form is a labelled choice of six, kept for the device', async () => {
  const { user } = section();
  const form = screen.getByRole('combobox', { name: 'Chart type' });
  expect(within(form).getAllByRole('option').map((o) => o.textContent)).toEqual(['Candles', 'Bars', 'Heikin-Ashi', 'Line', 'Area', 'Baseline']);
  await user.selectOptions(form, 'Heikin-Ashi');
  expect(calls('setType').at(-1)).toEqual(['heikinAshi']);
  expect(window.localStorage.getItem(StorageKey.chartType)).toBe('heikinAshi');
});

test('the drawing layer is not loaded until the tools are opened', async () => {
  const { user } = section();
  expect(calls('showDrawings')).toEqual([]);
  expect(screen.queryByRole('toolbar', { name: 'Drawing tools' })).toBeNull();
  await user.click(screen.getByRole('button', { name: 'Drawing tools' }));
  expect(calls('showDrawings')).toEqual([['BTCUSDT']]);
  const tools = await screen.findByRole('toolbar', { name: 'Drawing tools' });
  expect(within(tools).getAllByRole('button').map((b) => b.getAttribute('aria-label'))).toEqual([
    'Horizontal line',
    'Trend line',
    'Ray',
    'Zone (rectangle)',
    'Delete the selected drawing',
  ]);
  expect(screen.getByText('Pick a tool, or tap a drawing to select it')).toBeInTheDocument();
});

test('a symbol with drawings kept loads the layer at once', async () => {
  window.localStorage.setItem(
    StorageKey.chartDrawings,
    JSON.stringify({ BTCUSDT: [{ id: 'a', kind: 'hline', points: [{ time: 1, price: 2 }] }] }),
  );
  section();
  expect(calls('showDrawings')).toEqual([['BTCUSDT']]);
  await waitFor(() => expect(screen.getByTestId('price-chart')).toHaveAttribute('data-ready', 'true'));
});

test('a tool is armed and disarmed; delete works only on a selection', async () => {
  const { user } = section();
  await user.click(screen.getByRole('button', { name: 'Drawing tools' }));
  const tools = await screen.findByRole('toolbar', { name: 'Drawing tools' });
  const trend = within(tools).getByRole('button', { name: 'Trend line' });
  const remove = within(tools).getByRole('button', { name: 'Delete the selected drawing' });
  expect(remove).toBeDisabled();

  await user.click(trend);
  expect(calls('setDrawingTool').at(-1)).toEqual(['trend']);
  expect(trend).toHaveAttribute('aria-pressed', 'true');
  expect(screen.getByText('Tap two points on the chart, or drag from one to the other')).toBeInTheDocument();
  await user.click(trend);
  expect(calls('setDrawingTool').at(-1)).toEqual([null]);

  act(() => chart.onState?.({ tool: null, selected: true, count: 1, full: false }));
  expect(remove).toBeEnabled();
  await user.click(remove);
  expect(calls('deleteSelectedDrawing')).toHaveLength(1);
});

test('at the limit the other tools are refused with the reason', async () => {
  const { user } = section();
  await user.click(screen.getByRole('button', { name: 'Drawing tools' }));
  const tools = await screen.findByRole('toolbar', { name: 'Drawing tools' });
  act(() => chart.onState?.({ tool: null, selected: false, count: 50, full: true }));
  expect(within(tools).getByRole('button', { name: 'Ray' })).toBeDisabled();
  expect(screen.getByText('At most 50 drawings per symbol: delete one to draw another')).toBeInTheDocument();
});
