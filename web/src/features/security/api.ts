/** Password, two-factor authentication, live sessions, the sign-in history and security events. */
import { api } from '@/lib/api';
import type { Page } from '@/lib/api-client';
import type { Schemas, SecurityRow } from '@/types/api';

/** A live session; `current`: the session making the call, this browser. */
export type SessionView = Schemas['SessionView'];

/** A sign-in: its session, device and address, when it started and ended. */
export type LoginRow = Schemas['LoginRow'];

/**
 * An event of the security history beside sign-ins. `twoFactorLocked`: `failures` wrong
 * authenticator codes in a row paused two-factor actions (sign-in, turning it off, transfers,
 * withdrawals) from `time` until `until` (ms).
 */
export type SecurityEventRow = SecurityRow;

export const securityApi = {
  changePassword: (body: Schemas['ChangePasswordBody']) => api.post<unknown>('/user/password', body),
  twoFactor: (signal?: AbortSignal) => api.get<Schemas['TwoFactorState']>('/user/2fa', { signal }),
  setup: () => api.post<Schemas['TwoFactorSetup']>('/user/2fa/setup', {}),
  enable: (secret: string, code: string) => api.post<Schemas['TwoFactorState']>('/user/2fa/enable', { secret, code }),
  /** Turning it off needs the login password as well as a current code. */
  disable: (code: string, password: string) => api.post<Schemas['TwoFactorState']>('/user/2fa/disable', { code, password }),
  sessions: () => api.get<SessionView[]>('/user/sessions'),
  endSession: (id: number) => api.delete<unknown>(`/user/sessions/${id}`),
  loginHistory: (page: number, pageSize: number) => api.get<Page<LoginRow>>('/user/login-history', { query: { page, pageSize } }),
  /** Newest first. */
  securityEvents: (page: number, pageSize: number) => api.get<Page<SecurityEventRow>>('/user/security-events', { query: { page, pageSize } }),
};
