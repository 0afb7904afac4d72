import { type RefCallback, useCallback } from 'react';

/** The custom property the document's scroll padding reads (app.css). */
export const STICKY_BLOCK_END = '--sticky-block-end';

/**
 * A ref for a bar that sticks to the bottom of the screen (the order bar on phones and
 * tablets): while it is mounted, its height is kept in {@link STICKY_BLOCK_END} on the
 * document, which the document's scroll padding adds, so that what the browser scrolls into
 * view to the nearest edge (find in page, a screen reader, a link to an anchor) stops above
 * the bar instead of under it. A ref, not an effect: the bar may mount after the component does (the
 * trade screen shows a spinner first).
 */
export function useStickyBlockEnd(): RefCallback<HTMLElement> {
  return useCallback((element: HTMLElement | null) => {
    if (!element || typeof ResizeObserver === 'undefined') return;
    const root = document.documentElement;
    const measure = () => {
      const sticky = getComputedStyle(element).position === 'sticky';
      root.style.setProperty(STICKY_BLOCK_END, `${sticky ? element.offsetHeight : 0}px`);
    };
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    measure();
    return () => {
      observer.disconnect();
      root.style.removeProperty(STICKY_BLOCK_END);
    };
  }, []);
}
