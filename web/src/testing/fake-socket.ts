/**
 * A stand-in for the browser's WebSocket in component tests: records what the client sends;
 * the test opens it, pushes the server's frames and drops it. Installed with `mockSocket()`.
 */
import { act } from '@testing-library/react';
import { vi } from 'vitest';

export class FakeSocket {
  static all: FakeSocket[] = [];
  readyState = 0;
  sent: Array<Record<string, unknown>> = [];
  onopen: (() => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  closedByClient = false;

  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(text: string) {
    this.sent.push(JSON.parse(text) as Record<string, unknown>);
  }
  close() {
    this.closedByClient = true;
    this.readyState = 3;
  }
  // Test side, each inside act() as the page re-renders.
  open() {
    act(() => {
      this.readyState = 1;
      this.onopen?.();
    });
  }
  push(frame: unknown) {
    act(() => this.onmessage?.({ data: JSON.stringify(frame) }));
  }
  drop(code = 1006) {
    act(() => {
      this.readyState = 3;
      this.onclose?.({ code });
    });
  }
  ops(op: string) {
    return this.sent.filter((m) => m.op === op);
  }
}

/** The newest socket the client opened. */
export function lastSocket(): FakeSocket {
  const socket = FakeSocket.all[FakeSocket.all.length - 1];
  if (!socket) throw new Error('no socket yet');
  return socket;
}

export function mockSocket() {
  FakeSocket.all = [];
  vi.stubGlobal('WebSocket', FakeSocket);
  return FakeSocket;
}
