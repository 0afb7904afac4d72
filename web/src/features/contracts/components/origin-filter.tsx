/**
 * Whose orders the records show: all, only my own, or only the copies of other traders'
 * orders. A group of radio buttons drawn as chips (native radios: arrow keys move the choice,
 * Tab reaches the group once).
 */
import { useId } from 'react';
import { useTranslation } from 'react-i18next';

import type { Origin } from '../api';

const ORIGINS: readonly Origin[] = ['all', 'own', 'copies'];

/** The filter's value in the address: `?copied=true` (copies), `?copied=false` (own), else all. */
export function originOf(copied: string | null): Origin {
  if (copied === 'true') return 'copies';
  if (copied === 'false') return 'own';
  return 'all';
}

/** The `copied` parameter of the address for a filter; null (no parameter) for all. */
export function copiedParam(origin: Origin): string | null {
  return origin === 'all' ? null : String(origin === 'copies');
}

export function OriginFilter({ value, onChange }: { value: Origin; onChange(next: Origin): void }) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <div className="records-filter">
      <span id={`${id}-label`} className="muted small">
        {t('records.filter.label')}
      </span>
      <div className="chip-row" role="radiogroup" aria-labelledby={`${id}-label`}>
        {ORIGINS.map((origin) => (
          <label key={origin} className={`chip ${value === origin ? 'chip-active' : ''}`}>
            <input type="radio" name={`${id}-origin`} className="sr-only" value={origin} checked={value === origin} onChange={() => onChange(origin)} />
            {t(`records.filter.${origin}`)}
          </label>
        ))}
      </div>
    </div>
  );
}
