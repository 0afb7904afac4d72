import { render } from '@testing-library/react';
import { useCallback } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { STICKY_BLOCK_END, useStickyBlockEnd } from './use-sticky-block-end';

/** A ResizeObserver jsdom lacks: records what it watches and lets the test report a resize. */
class FakeObserver {
  static last: FakeObserver | null = null;
  watched: Element[] = [];
  constructor(private readonly callback: () => void) {
    FakeObserver.last = this;
  }
  observe(element: Element) {
    this.watched.push(element);
  }
  disconnect() {
    this.watched = [];
  }
  resize() {
    this.callback();
  }
}

/** A bar as tall as `size.height` (jsdom lays nothing out, so the test sets it), shown after
 * a first render without it, as the trade screen shows a spinner first. */
function Bar({ position, size, shown = true }: { position: 'sticky' | 'static'; size: { height: number }; shown?: boolean }) {
  const sticky = useStickyBlockEnd();
  const measured = useCallback(
    (element: HTMLElement | null) => {
      if (element) Object.defineProperty(element, 'offsetHeight', { configurable: true, get: () => size.height });
      return sticky(element);
    },
    [sticky, size],
  );
  return shown ? <aside ref={measured} style={{ position }} /> : <p>…</p>;
}

describe('useStickyBlockEnd', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('keeps the height of a sticky bar on the document as it changes, and removes it on unmount', () => {
    vi.stubGlobal('ResizeObserver', FakeObserver);
    const root = document.documentElement;
    const size = { height: 150 };
    const { rerender, unmount } = render(<Bar position="sticky" size={size} shown={false} />);
    expect(root.style.getPropertyValue(STICKY_BLOCK_END)).toBe('');
    rerender(<Bar position="sticky" size={size} />);
    expect(root.style.getPropertyValue(STICKY_BLOCK_END)).toBe('150px');
    // The panel opened: the observer reports the new height.
    size.height = 420;
    FakeObserver.last!.resize();
    expect(root.style.getPropertyValue(STICKY_BLOCK_END)).toBe('420px');
    unmount();
    expect(root.style.getPropertyValue(STICKY_BLOCK_END)).toBe('');
    expect(FakeObserver.last!.watched).toEqual([]);
  });

  it('counts nothing for a bar that does not stick (a desktop column)', () => {
    vi.stubGlobal('ResizeObserver', FakeObserver);
    render(<Bar position="static" size={{ height: 500 }} />);
    expect(document.documentElement.style.getPropertyValue(STICKY_BLOCK_END)).toBe('0px');
  });
});
