/**
 * The history's date filter: `YYYY-MM-DD` from a date input, read as the user's local day
 * (start at its first millisecond, end at its last) and sent as epoch milliseconds, so "today"
 * means the user's today wherever they are.
 */
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Local midnight of the day, or null when the text is not a real date. */
export function dayStartMs(text: string): number | null {
  const m = DAY.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(year, month - 1, day);
  if (date.getFullYear() !== year || date.getMonth() !== month - 1 || date.getDate() !== day) return null;
  return date.getTime();
}

/** The last millisecond of the local day, or null. */
export function dayEndMs(text: string): number | null {
  const start = dayStartMs(text);
  if (start === null) return null;
  const m = DAY.exec(text)!;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1).getTime() - 1;
}

/** The catalogue key of the range's problem: a date that does not parse, or an end before the start. */
export function checkRange(start: string, end: string): string | undefined {
  const from = start ? dayStartMs(start) : 0;
  const to = end ? dayEndMs(end) : Number.MAX_SAFE_INTEGER;
  if (from === null || to === null) return 'errors.invalidDate';
  if (from > to) return 'wallet.history.endBeforeStart';
  return undefined;
}
