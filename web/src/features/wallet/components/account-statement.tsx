/**
 * A printable statement of one account over a range of days (the history's filters, read
 * from the address): the balance before the range, the total of each kind of movement, and
 * the balance at its end, from `GET /api/wallet/statement` (the same bills as the history, so
 * the closing balance of a range that runs to today is the wallet's). The browser prints it or
 * saves it as PDF, in the trader's language and direction, or the server makes the same
 * statement as a PDF file; every movement is in the CSV.
 */
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';

import { ExportButton } from '@/components/export-button';
import { ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { checkRange, dayEndMs, dayStartMs } from '@/lib/dates';
import { formatDateTime, formatMoney } from '@/lib/format';
import { useSession } from '@/stores/session';

import { type Statement, walletApi } from '../api';

export function AccountStatement() {
  const { t, i18n } = useTranslation();
  const [params] = useSearchParams();
  const user = useSession((s) => s.user);
  const account: 'real' | 'demo' = params.get('account') === 'demo' ? 'demo' : 'real';
  const start = params.get('start') ?? '';
  const end = params.get('end') ?? '';
  const problem = checkRange(start, end);
  const [data, setData] = useState<Statement | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [printedAt] = useState(() => Date.now());
  const range = useMemo(
    () => ({
      account,
      start: start ? String(dayStartMs(start)) : undefined,
      end: end ? String(dayEndMs(end)) : undefined,
    }),
    [account, start, end],
  );

  useEffect(() => {
    if (problem) return undefined;
    let current = true;
    setData(null);
    setError(null);
    walletApi
      .statement(range)
      .then(
        (answer) => current && setData(answer),
        (e: unknown) => current && setError(errorMessage(e, 'errors.fetchRecords')),
      );
    return () => {
      current = false;
    };
  }, [range, problem, reload]);

  const money = (value: string | null | undefined, signed = false) => (value ? formatMoney(value, i18n.language, signed) : '—');
  const day = (text: string) => new Intl.DateTimeFormat(i18n.language, { dateStyle: 'long' }).format(dayStartMs(text) ?? 0);
  const period = start && end ? `${day(start)} – ${day(end)}` : start ? t('wallet.statement.since', { date: day(start) }) : end ? t('wallet.statement.until', { date: day(end) }) : t('wallet.statement.wholeHistory');

  return (
    <section className="statement" aria-labelledby="statement-title">
      <div className="statement-actions no-print">
        <Link to="/account/history" className="btn btn-ghost btn-small">
          {t('wallet.statement.back')}
        </Link>
        <div>
          <ExportButton fetchFile={() => walletApi.statementPdf(range)} label={t('wallet.statement.downloadPdf')} />
          <button type="button" className="btn btn-primary btn-small" disabled={!data} onClick={() => window.print()}>
            {t('wallet.statement.print')}
          </button>
        </div>
      </div>
      <h1 id="statement-title" className="page-title">
        {t('wallet.statement.title')}
      </h1>
      <dl className="statement-meta">
        <div>
          <dt>{t('wallet.statement.holder')}</dt>
          <dd>
            <bdi>{user?.username}</bdi> · UID <span className="num">{user?.uid}</span>
          </dd>
        </div>
        <div>
          <dt>{t('wallet.statement.account')}</dt>
          <dd>{t(`header.${account}`)}</dd>
        </div>
        <div>
          <dt>{t('wallet.statement.period')}</dt>
          <dd>{period}</dd>
        </div>
        <div>
          <dt>{t('wallet.statement.printed')}</dt>
          <dd>{formatDateTime(printedAt, i18n.language)}</dd>
        </div>
      </dl>
      {problem ? (
        <ErrorState text={t(problem)} />
      ) : error ? (
        <ErrorState text={error} onRetry={() => setReload((n) => n + 1)} />
      ) : !data ? (
        <SkeletonRows rows={4} columns={2} />
      ) : (
        <>
          <table className="statement-table" data-testid="statement">
            <tbody>
              <tr className="statement-balance">
                <th scope="row">{t('wallet.history.opening')}</th>
                <td className="num" data-testid="statement-opening">
                  <bdi dir="ltr">{money(data.opening)}</bdi>
                </td>
              </tr>
              {data.byType
                .filter(({ amount }) => Number(amount) !== 0)
                .map(({ type, amount }) => (
                  <tr key={type}>
                    <th scope="row">{t(`wallet.billType.${type}`)}</th>
                    <td className={`num ${Number(amount) > 0 ? 'up' : 'down'}`}>
                      <bdi dir="ltr">{money(amount, true)}</bdi>
                    </td>
                  </tr>
                ))}
              <tr className="statement-balance">
                <th scope="row">{t('wallet.history.closing')}</th>
                <td className="num" data-testid="statement-closing">
                  <bdi dir="ltr">{money(data.closing)}</bdi>
                </td>
              </tr>
            </tbody>
          </table>
          <p className="muted small">{t('wallet.statement.note', { count: data.count })}</p>
        </>
      )}
    </section>
  );
}
