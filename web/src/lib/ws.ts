/** The app's websocket, and hooks to use it from components. */
import { useEffect, useLayoutEffect, useRef, useSyncExternalStore } from 'react';

import { requestLanguage } from './i18n';
import { type ServerFrame, type Topic, WsClient, socketUrl } from './ws-client';

export const ws = new WsClient({ url: () => socketUrl(requestLanguage()) });

/** The connection state, re-rendering on every change. */
export function useConnectionStatus() {
  return useSyncExternalStore(ws.onStatus, ws.getStatus);
}

/** The latest value of a callback, so effects need not re-run when it changes. */
function useLatest<T>(value: T): { readonly current: T } {
  const ref = useRef(value);
  useLayoutEffect(() => {
    ref.current = value;
  });
  return ref;
}

/** Subscribes to a market-data topic while mounted (and while `topic` is non-null). */
export function useTopic<T>(topic: Topic | null, listener: (frame: ServerFrame<T>) => void): void {
  const latest = useLatest(listener);
  const key = topic ? JSON.stringify(topic) : null;
  useEffect(() => {
    if (!key) return undefined;
    return ws.subscribe<T>(JSON.parse(key) as Topic, (frame) => latest.current(frame));
  }, [key, latest]);
}

/** Listens to a private frame type (`order.settled`, `balance`, ...) or client event. */
export function useWsEvent<T>(type: string, listener: (frame: ServerFrame<T>) => void): void {
  const latest = useLatest(listener);
  useEffect(() => ws.on<T>(type, (frame) => latest.current(frame)), [type, latest]);
}
