/** Pieces the lobby and a tournament's page share: its status, its clock, its prizes and rules. */
import { useTranslation } from 'react-i18next';

import { formatCountdown, formatDateTime, formatDuration, formatMoney } from '@/lib/format';
import { type Language, direction } from '@/lib/i18n';

import { type TournamentRules, type TournamentSummary, percentOf } from '../api';

export function StatusPill({ status }: { status: string }) {
  const { t } = useTranslation();
  return <span className={`pill tournament-status tournament-${status}`}>{t(`tournaments.status.${status}`)}</span>;
}

/** "Starts in 01:02:03", "Ends in 12:00", or when it ended: against the server's clock. */
export function Clock({ tournament, now }: { tournament: TournamentSummary; now: number }) {
  const { t, i18n } = useTranslation();
  const { startAt, endAt } = tournament.rules;
  let text;
  if (tournament.status === 'upcoming') text = t('tournaments.startsIn', { time: formatCountdown(startAt - now) });
  else if (tournament.status === 'running') text = t('tournaments.endsIn', { time: formatCountdown(endAt - now) });
  else if (tournament.status === 'ending') text = t('tournaments.settling');
  else text = t('tournaments.endedAt', { time: formatDateTime(tournament.closedAt ?? endAt, i18n.language) });
  return <span className="num tournament-clock">{text}</span>;
}

type Translate = (key: string, options?: Record<string, unknown>) => string;

/**
 * "10.00 USDT"; in a right-to-left language isolated (FSI … PDI), so that inside a sentence
 * the amount and its unit stay in their order.
 */
export function usdt(amount: string, t: Translate, language: string): string {
  const text = t('tournaments.usdt', { amount: formatMoney(amount, language) });
  return direction(language as Language) === 'rtl' ? `\u2068${text}\u2069` : text;
}

/** True for a fee above zero. */
export const isPaid = (fee: string) => Number(fee) > 0;

/** The entry fee in words: "Free" or "10.00 USDT". */
export function feeText(fee: string, t: Translate, language: string): string {
  return isPaid(fee) ? usdt(fee, t, language) : t('tournaments.free');
}

/** Each paid place with its prize, first place first. */
export function Prizes({ prizes }: { prizes: readonly string[] }) {
  const { t, i18n } = useTranslation();
  return (
    <ol className="tournament-prizes" aria-label={t('tournaments.prizes')}>
      {prizes.map((prize, i) => (
        <li key={i}>
          <span className="muted">{t('tournaments.place', { place: i + 1 })}</span>
          <span className="num">{t('tournaments.usdt', { amount: formatMoney(prize, i18n.language) })}</span>
        </li>
      ))}
    </ol>
  );
}

/** The rules as a list of terms: what anyone may check the table against. */
export function RulesList({ rules }: { rules: TournamentRules }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const money = (v: string) => formatMoney(v, lang);
  const items: Array<[string, string]> = [
    [t('tournaments.rules.window'), t('tournaments.rules.from', { start: formatDateTime(rules.startAt, lang), end: formatDateTime(rules.endAt, lang) })],
    [t('tournaments.rules.products'), rules.symbols.length ? rules.symbols.join(', ') : t('tournaments.rules.everyProduct')],
    [t('tournaments.rules.durations'), rules.durations.length ? rules.durations.map((d) => formatDuration(d, t)).join(', ') : t('tournaments.rules.everyDuration')],
    [t('tournaments.entryFee'), feeText(rules.entryFee, t, lang)],
    [t('tournaments.rules.startBalance'), money(rules.startBalance)],
    [
      t('tournaments.rules.rebuys'),
      rules.rebuysMax > 0
        ? t(isPaid(rules.rebuyFee) ? 'tournaments.rules.rebuysText' : 'tournaments.rules.rebuysFree', { n: rules.rebuysMax, fee: feeText(rules.rebuyFee, t, lang), below: money(rules.rebuyBelow) })
        : t('tournaments.rules.noRebuys'),
    ],
    [
      t('tournaments.rules.pool'),
      isPaid(rules.entryFee) || isPaid(rules.rebuyFee)
        ? t('tournaments.rules.poolText', { share: percentOf(rules.poolShareBp), min: usdt(rules.poolMin, t, lang) })
        : isPaid(rules.poolMin)
          ? t('tournaments.rules.poolFixed', { min: usdt(rules.poolMin, t, lang) })
          : t('tournaments.rules.noPool'),
    ],
    [t('tournaments.rules.ranking'), t('tournaments.rules.rankingText')],
  ];
  return (
    <dl className="detail-pairs tournament-rules">
      {items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
