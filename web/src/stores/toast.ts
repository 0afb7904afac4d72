/** Short messages at the top of the screen: errors, confirmations. At most 4 at a time. */
import { create } from 'zustand';

export const TOASTS_MAX = 4;
export const TOAST_MS = 4_000;

export type ToastKind = 'error' | 'success' | 'info';

export interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
}

interface ToastState {
  toasts: Toast[];
  push(kind: ToastKind, text: string): void;
  dismiss(id: number): void;
}

let nextId = 1;

export const useToasts = create<ToastState>()((set, get) => ({
  toasts: [],
  push(kind, text) {
    const id = nextId++;
    // The same text twice in a row is shown once.
    const rest = get().toasts.filter((t) => t.text !== text);
    set({ toasts: [...rest, { id, kind, text }].slice(-TOASTS_MAX) });
    setTimeout(() => get().dismiss(id), TOAST_MS);
  },
  dismiss(id) {
    set({ toasts: get().toasts.filter((t) => t.id !== id) });
  },
}));

export const toast = {
  error: (text: string) => useToasts.getState().push('error', text),
  success: (text: string) => useToasts.getState().push('success', text),
  info: (text: string) => useToasts.getState().push('info', text),
};
