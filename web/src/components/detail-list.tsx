/** Label and value pairs, as a description list (a contract's terms, its record). */
export type DetailRow = readonly [label: string, value: string, tone?: string];

export function DetailList({ rows, testId }: { rows: ReadonlyArray<DetailRow>; testId?: string }) {
  return (
    <dl className="detail-list" data-testid={testId}>
      {rows.map(([label, value, tone]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd className={tone ? `num ${tone}` : 'num'}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
