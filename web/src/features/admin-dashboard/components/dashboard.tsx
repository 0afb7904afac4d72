/**
 * The back-office's dashboard (decisions §9): figures of now (users, open contracts, online
 * connections, pending orders, the house's capital), today's and the last 30 days' (new users,
 * sign-ins, deposits, withdrawals, turnover, the house's result), and a chart of one figure
 * per day with the same days in a table.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatMoney } from '@/lib/format';

import { DASHBOARD_DAYS, type Dashboard, type Day, fetchDashboard, fetchDays } from '../api';
import { DailyChart } from '../chart';
import { DAY_METRICS, type DayMetric, MONEY_METRICS, chartValue, sumDays } from '../figures';

interface Loaded {
  now: Dashboard;
  days: Day[];
}

function Figure({ label, value }: { label: string; value: string | number }) {
  return (
    <div className="admin-figure">
      <dt>{label}</dt>
      <dd className="num">{value}</dd>
    </div>
  );
}

function PeriodFigures({ title, day }: { title: string; day: Day }) {
  const { t, i18n } = useTranslation();
  const money = (v: string) => `${formatMoney(v, i18n.language)} USDT`;
  return (
    <section className="admin-card" aria-label={title}>
      <h2 className="admin-card-title">{title}</h2>
      <dl className="admin-figures">
        <Figure label={t('admin.dashboard.newUsers')} value={day.registrations} />
        <Figure label={t('admin.dashboard.logins')} value={day.logins} />
        <Figure label={t('admin.dashboard.deposits')} value={`${money(day.depositAmount)} (${day.deposits})`} />
        <Figure label={t('admin.dashboard.withdrawals')} value={`${money(day.withdrawalAmount)} (${day.withdrawals})`} />
        <Figure label={t('admin.dashboard.turnover')} value={`${money(day.turnover)} (${day.contracts})`} />
        <Figure label={t('admin.dashboard.houseResult')} value={money(day.houseResult)} />
      </dl>
    </section>
  );
}

function DailyChartCard({ days }: { days: Day[] }) {
  const { t, i18n } = useTranslation();
  const [metric, setMetric] = useState<DayMetric>('turnover');
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<DailyChart | null>(null);

  useEffect(() => {
    if (!box.current) return undefined;
    const created = new DailyChart(box.current);
    chart.current = created;
    return () => {
      created.remove();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    const money = MONEY_METRICS.has(metric);
    chart.current?.show(
      days.map((d) => ({ day: d.day, value: chartValue(d, metric) })),
      metric === 'houseResult',
      money ? 2 : 0,
    );
  }, [days, metric]);

  const dayText = (ms: number) => new Intl.DateTimeFormat(i18n.language, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(ms);
  const valueText = (d: Day) => (MONEY_METRICS.has(metric) ? formatMoney(d[metric] as string, i18n.language) : String(d[metric]));
  return (
    <section className="admin-card" aria-label={t('admin.dashboard.chartTitle')}>
      <div className="admin-card-head">
        <h2 className="admin-card-title">{t('admin.dashboard.chartTitle')}</h2>
        <label className="admin-select">
          <span className="sr-only">{t('admin.dashboard.metric')}</span>
          <select value={metric} onChange={(e) => setMetric(e.target.value as DayMetric)} aria-label={t('admin.dashboard.metric')}>
            {DAY_METRICS.map((m) => (
              <option key={m} value={m}>
                {t(`admin.dashboard.metrics.${m}`)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="admin-chart" ref={box} aria-hidden="true" />
      <details className="admin-days">
        <summary>{t('admin.dashboard.table')}</summary>
        <table className="table">
          <thead>
            <tr>
              <th scope="col">{t('admin.dashboard.day')}</th>
              <th scope="col">{t(`admin.dashboard.metrics.${metric}`)}</th>
            </tr>
          </thead>
          <tbody>
            {[...days].reverse().map((d) => (
              <tr key={d.day}>
                <td>{dayText(d.day)}</td>
                <td className="num">{valueText(d)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}

export function AdminDashboard() {
  const { t, i18n } = useTranslation();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);

  useEffect(() => {
    const controller = new AbortController();
    setFailure(null);
    Promise.all([fetchDashboard(controller.signal), fetchDays(DASHBOARD_DAYS, controller.signal)])
      .then(([now, days]) => setLoaded({ now, days }))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(error));
      });
    return () => controller.abort();
  }, [attempt]);

  const money = (v: string) => `${formatMoney(v, i18n.language)} USDT`;
  return (
    <div className="admin-page">
      <h1 className="page-title">{t('admin.nav.dashboard')}</h1>
      {failure ? (
        <ErrorState text={failure} onRetry={retry} />
      ) : !loaded ? (
        <SkeletonRows rows={4} columns={3} />
      ) : (
        <>
          <section className="admin-card" aria-label={t('admin.dashboard.now')}>
            <h2 className="admin-card-title">{t('admin.dashboard.now')}</h2>
            <dl className="admin-figures">
              <Figure label={t('admin.dashboard.users')} value={loaded.now.users} />
              <Figure label={t('admin.dashboard.openContracts')} value={loaded.now.openContracts} />
              <Figure label={t('admin.dashboard.online')} value={loaded.now.online} />
              <Figure label={t('admin.dashboard.pendingDeposits')} value={loaded.now.pendingDeposits} />
              <Figure label={t('admin.dashboard.pendingWithdrawals')} value={loaded.now.pendingWithdrawals} />
              <Figure label={t('admin.dashboard.houseBalance')} value={money(loaded.now.houseBalance)} />
            </dl>
          </section>
          <div className="admin-grid">
            <PeriodFigures title={t('admin.dashboard.today')} day={loaded.days[loaded.days.length - 1] ?? sumDays([])} />
            <PeriodFigures title={t('admin.dashboard.lastDays', { count: loaded.days.length })} day={sumDays(loaded.days)} />
          </div>
          <DailyChartCard days={loaded.days} />
        </>
      )}
    </div>
  );
}
