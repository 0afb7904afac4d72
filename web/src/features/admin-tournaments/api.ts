/**
 * Tournaments in the back-office (gateway/src/api/admin/tournaments.rs): every tournament kept,
 * drafts included; a draft is created and changed here, then published (its rules are fixed
 * from then on and the house holds its guaranteed pool aside) or cancelled before its start
 * (every fee refunded).
 */
import { adminApi } from '@/lib/admin-api';
import { AMOUNT_TEXT, isAmountText } from '@/lib/decimal';
import type { Schemas } from '@/types/api';

export type AdminTournament = Schemas['TournamentSummary'];
export type TournamentDetail = Schemas['TournamentDetail'];
export type TournamentRulesBody = Schemas['TournamentRulesView'];

export const TITLE_MAX = 60;

export const fetchTournaments = (signal?: AbortSignal) => adminApi.get<AdminTournament[]>('/admin/tournaments', { signal });
export const createTournament = (body: TournamentRulesBody) => adminApi.post<TournamentDetail>('/admin/tournaments', body);
export const updateTournament = (id: number, body: TournamentRulesBody) => adminApi.put<TournamentDetail>(`/admin/tournaments/${id}`, body);
export const publishTournament = (id: number) => adminApi.post<TournamentDetail>(`/admin/tournaments/${id}/publish`);
export const cancelTournament = (id: number) => adminApi.post<TournamentDetail>(`/admin/tournaments/${id}/cancel`);

/** The form as typed: lists comma-separated, times as the browser's local date-time, shares in percent. */
export interface TournamentForm {
  title: string;
  symbols: string;
  durations: string;
  start: string;
  end: string;
  entryFee: string;
  startBalance: string;
  rebuysMax: string;
  rebuyFee: string;
  rebuyBelow: string;
  poolShare: string;
  poolMin: string;
  prizes: string;
}

export type FormField = keyof TournamentForm;

/** `Date` → the value of an `<input type="datetime-local" step="1">` in the browser's time zone, to the second. */
export function localInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const HOUR_MS = 3_600_000;

/** A new tournament's form: free, starting in an hour for a day, one prize. */
export function blankForm(now: number): TournamentForm {
  const start = Math.ceil((now + HOUR_MS) / HOUR_MS) * HOUR_MS;
  return {
    title: '',
    symbols: '',
    durations: '',
    start: localInput(start),
    end: localInput(start + 24 * HOUR_MS),
    entryFee: '0',
    startBalance: '10000',
    rebuysMax: '0',
    rebuyFee: '0',
    rebuyBelow: '0',
    poolShare: '80',
    poolMin: '0',
    prizes: '50, 30, 20',
  };
}

/** A draft's rules as the form shows them. */
export function formOf(r: TournamentRulesBody): TournamentForm {
  return {
    title: r.title,
    symbols: r.symbols.join(', '),
    durations: r.durations.join(', '),
    start: localInput(r.startAt),
    end: localInput(r.endAt),
    entryFee: r.entryFee,
    startBalance: r.startBalance,
    rebuysMax: String(r.rebuysMax),
    rebuyFee: r.rebuyFee,
    rebuyBelow: r.rebuyBelow,
    poolShare: String(r.poolShareBp / 100),
    poolMin: r.poolMin,
    prizes: r.prizesBp.map((bp) => bp / 100).join(', '),
  };
}

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** A percentage with at most two decimals, in basis points, or null. */
function basisPoints(value: string): number | null {
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(value.trim())) return null;
  const bp = Math.round(Number(value) * 100);
  return bp <= 10_000 ? bp : null;
}

/** The request body, or the catalogue keys of what is wrong, field by field. */
export function checkForm(f: TournamentForm): { body: TournamentRulesBody | null; errors: Partial<Record<FormField, string>> } {
  const errors: Partial<Record<FormField, string>> = {};
  const title = f.title.trim();
  if (!title || [...title].length > TITLE_MAX) errors.title = 'admin.tournaments.errors.title';
  const symbols = list(f.symbols).map((s) => s.toUpperCase());
  if (symbols.some((s) => !/^[A-Z0-9]{3,16}$/.test(s))) errors.symbols = 'admin.tournaments.errors.symbols';
  const durations = list(f.durations).map(Number);
  if (durations.some((d) => !Number.isInteger(d) || d <= 0)) errors.durations = 'admin.tournaments.errors.durations';
  const startAt = new Date(f.start).getTime();
  const endAt = new Date(f.end).getTime();
  if (!Number.isFinite(startAt)) errors.start = 'admin.tournaments.errors.time';
  if (!Number.isFinite(endAt)) errors.end = 'admin.tournaments.errors.time';
  else if (Number.isFinite(startAt) && endAt <= startAt) errors.end = 'admin.tournaments.errors.endBeforeStart';
  // Zero is a fee, a rebuy level or a minimum pool; a start balance is above it.
  for (const field of ['entryFee', 'rebuyFee', 'rebuyBelow', 'poolMin'] as const) {
    if (!AMOUNT_TEXT.test(f[field].trim())) errors[field] = 'admin.tournaments.errors.amount';
  }
  if (!isAmountText(f.startBalance)) errors.startBalance = 'admin.tournaments.errors.amount';
  const rebuysMax = Number(f.rebuysMax);
  if (!/^\d{1,3}$/.test(f.rebuysMax.trim()) || rebuysMax > 100) errors.rebuysMax = 'admin.tournaments.errors.rebuys';
  const poolShareBp = basisPoints(f.poolShare);
  if (poolShareBp === null) errors.poolShare = 'admin.tournaments.errors.share';
  const prizes = list(f.prizes).map(basisPoints);
  const prizesBp = prizes.filter((p): p is number => p !== null && p > 0);
  const ordered = prizesBp.every((p, i) => i === 0 || p <= prizesBp[i - 1]!);
  if (prizesBp.length === 0 || prizesBp.length !== prizes.length || !ordered || prizesBp.reduce((a, b) => a + b, 0) !== 10_000) {
    errors.prizes = 'admin.tournaments.errors.prizes';
  }
  if (Object.keys(errors).length > 0) return { body: null, errors };
  return {
    body: {
      title,
      symbols,
      durations,
      startAt,
      endAt,
      entryFee: f.entryFee.trim(),
      startBalance: f.startBalance.trim(),
      rebuysMax,
      rebuyFee: f.rebuyFee.trim(),
      rebuyBelow: f.rebuyBelow.trim(),
      poolShareBp: poolShareBp!,
      poolMin: f.poolMin.trim(),
      prizesBp,
    },
    errors,
  };
}
