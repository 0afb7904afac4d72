/**
 * The device class (spec §3): mobile up to 768 px, tablet up to 1024 px, else desktop. Read at
 * start, on every route change, and on resize at most once per animation frame.
 */
import { create } from 'zustand';

export const MOBILE_MAX_PX = 768;
export const TABLET_MAX_PX = 1024;

export type DeviceClass = 'mobile' | 'tablet' | 'desktop';

export function deviceClassOf(width: number): DeviceClass {
  if (width <= MOBILE_MAX_PX) return 'mobile';
  if (width <= TABLET_MAX_PX) return 'tablet';
  return 'desktop';
}

interface DeviceState {
  width: number;
  deviceClass: DeviceClass;
  /** Reads the window's width now. */
  measure(): void;
}

export const useDevice = create<DeviceState>()((set, get) => ({
  width: typeof window === 'undefined' ? 1440 : window.innerWidth,
  deviceClass: deviceClassOf(typeof window === 'undefined' ? 1440 : window.innerWidth),
  measure() {
    const width = window.innerWidth;
    if (width !== get().width) set({ width, deviceClass: deviceClassOf(width) });
  },
}));

/** Re-measures on resize, throttled to one animation frame; returns the detach function. */
export function watchResize(target: Window): () => void {
  let frame = 0;
  const onResize = () => {
    if (frame) return;
    frame = target.requestAnimationFrame(() => {
      frame = 0;
      useDevice.getState().measure();
    });
  };
  target.addEventListener('resize', onResize);
  useDevice.getState().measure();
  return () => {
    target.removeEventListener('resize', onResize);
    if (frame) target.cancelAnimationFrame(frame);
  };
}
