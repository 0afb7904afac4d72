import { vi } from 'vitest';

import { deviceClassOf, useDevice, watchResize } from './device';

test('mobile up to 768 px, tablet up to 1024 px, then desktop', () => {
  expect(deviceClassOf(390)).toBe('mobile');
  expect(deviceClassOf(768)).toBe('mobile');
  expect(deviceClassOf(769)).toBe('tablet');
  expect(deviceClassOf(1024)).toBe('tablet');
  expect(deviceClassOf(1025)).toBe('desktop');
});

test('resizes are read at most once per animation frame', () => {
  const frames: FrameRequestCallback[] = [];
  vi.spyOn(window, 'requestAnimationFrame').mockImplementation((cb) => frames.push(cb));
  Object.defineProperty(window, 'innerWidth', { configurable: true, value: 1440 });
  const detach = watchResize(window); // measures once at start
  expect(useDevice.getState().deviceClass).toBe('desktop');
  for (const width of [500, 700, 900]) {
    Object.defineProperty(window, 'innerWidth', { configurable: true, value: width });
    window.dispatchEvent(new Event('resize'));
  }
  expect(frames).toHaveLength(1);
  expect(useDevice.getState().deviceClass).toBe('desktop'); // not yet: the frame has not come
  frames[0]!(0);
  expect(useDevice.getState()).toMatchObject({ width: 900, deviceClass: 'tablet' });
  detach();
});
