/** Label and value pairs, as a description list (a contract's terms, its record). */
export interface DetailRow {
  label: string;
  value: string;
  /** Colour: `up` or `down`. */
  tone?: string;
  /** Words or a date, laid out in the language's direction; numbers stay left-to-right. */
  text?: boolean;
}

export function DetailList({ rows, testId }: { rows: ReadonlyArray<DetailRow>; testId?: string }) {
  return (
    <dl className="detail-list" data-testid={testId}>
      {rows.map(({ label, value, tone, text }) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd className={[text ? '' : 'num', tone ?? ''].join(' ').trim() || undefined}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
