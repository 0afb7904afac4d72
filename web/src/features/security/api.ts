/** Password, two-factor authentication, live sessions, the sign-in history and security events. */
import { api } from '@/lib/api';
import type { Page } from '@/lib/api-client';

export interface SessionView {
  id: number;
  device: string;
  ip: string;
  createdAt: number;
  expiresAt: number;
  /** The session making the call: this browser. */
  current: boolean;
}

export interface LoginRow {
  session: number;
  device: string;
  ip: string;
  startedAt: number;
  endedAt: number | null;
}

/**
 * An event of the security history beside sign-ins. `twoFactorLocked`: `failures` wrong
 * authenticator codes in a row paused two-factor actions (sign-in, turning it off, transfers,
 * withdrawals) from `time` until `until` (ms).
 */
export interface SecurityEventRow {
  kind: string;
  time: number;
  until: number;
  failures: number;
}

export const securityApi = {
  changePassword: (body: { oldPassword: string; newPassword: string; confirmPassword: string }) => api.post<unknown>('/user/password', body),
  twoFactor: (signal?: AbortSignal) => api.get<{ enabled: boolean }>('/user/2fa', { signal }),
  setup: () => api.post<{ secret: string; otpauthUrl: string }>('/user/2fa/setup', {}),
  enable: (secret: string, code: string) => api.post<{ enabled: boolean }>('/user/2fa/enable', { secret, code }),
  /** Turning it off needs the login password as well as a current code. */
  disable: (code: string, password: string) => api.post<{ enabled: boolean }>('/user/2fa/disable', { code, password }),
  sessions: () => api.get<SessionView[]>('/user/sessions'),
  endSession: (id: number) => api.delete<unknown>(`/user/sessions/${id}`),
  loginHistory: (page: number, pageSize: number) => api.get<Page<LoginRow>>('/user/login-history', { query: { page, pageSize } }),
  /** Newest first. */
  securityEvents: (page: number, pageSize: number) => api.get<Page<SecurityEventRow>>('/user/security-events', { query: { page, pageSize } }),
};
