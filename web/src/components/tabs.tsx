/** A row of tabs with the ARIA tab pattern; arrow keys move between them. */
import type { KeyboardEvent, ReactNode } from 'react';

export interface TabItem<K extends string> {
  key: K;
  label: ReactNode;
  /** An accessible name when the label is not plain text. */
  ariaLabel?: string;
}

interface TabsProps<K extends string> {
  items: ReadonlyArray<TabItem<K>>;
  /** The selected tab; null while none is yet (the first tab is then the one Tab reaches). */
  value: K | null;
  onChange(key: K): void;
  label: string;
  className?: string;
}

export function Tabs<K extends string>({ items, value, onChange, label, className }: TabsProps<K>) {
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = items.findIndex((i) => i.key === value);
    const rtl = document.documentElement.dir === 'rtl';
    const forward = rtl ? 'ArrowLeft' : 'ArrowRight';
    const backward = rtl ? 'ArrowRight' : 'ArrowLeft';
    let next = -1;
    if (event.key === forward) next = (index + 1) % items.length;
    if (event.key === backward) next = (index - 1 + items.length) % items.length;
    const item = next >= 0 ? items[next] : undefined;
    if (item) {
      event.preventDefault();
      onChange(item.key);
      const buttons = event.currentTarget.querySelectorAll<HTMLButtonElement>('[role="tab"]');
      buttons[next]?.focus();
    }
  };
  return (
    <div role="tablist" aria-label={label} className={['tabs', className ?? ''].join(' ')} onKeyDown={onKeyDown}>
      {items.map((item, i) => (
        <button
          key={item.key}
          type="button"
          role="tab"
          aria-selected={item.key === value}
          aria-label={item.ariaLabel}
          tabIndex={item.key === value || (value === null && i === 0) ? 0 : -1}
          className={item.key === value ? 'tab tab-active' : 'tab'}
          onClick={() => onChange(item.key)}
        >
          {item.label}
        </button>
      ))}
    </div>
  );
}
