/** The sign-in calls (spec §7, decisions §6). */
import { api } from '@/lib/api';
import type { Schemas } from '@/types/api';

/**
 * A sign-in's answer. `deviceToken`: proof that this browser signed in to this account, for
 * its later password sign-ins.
 */
export type LoginData = Schemas['LoginData'];

export type CodeSent = Schemas['CodeSent'];

export type WalletChain = Schemas['WalletBody']['chain'];

export const authApi = {
  /** `deviceToken`: this browser's proof of an earlier sign-in to the account, if it has one. */
  login: (body: { username: string; password: string; remember: boolean; totpCode?: string; deviceToken?: string }) =>
    api.post<LoginData>('/login/login', body),
  emailLogin: (body: { email: string; code: string; remember: boolean; totpCode?: string }) =>
    api.post<LoginData>('/login/login', body),
  sendLoginCode: (email: string) => api.post<CodeSent>('/login/send-code', { email }),
  register: (body: {
    username: string;
    email: string;
    password: string;
    confirmPassword: string;
    inviteCode?: string;
    agreeTerms: boolean;
  }) => api.post<Schemas['Registered']>('/login/register', body),
  walletNonce: (chain: WalletChain, address: string) => api.post<Schemas['WalletNonce']>('/login/wallet-nonce', { chain, address }),
  walletLogin: (body: { chain: WalletChain; address: string; signature: string; nonce: string; remember: boolean }) =>
    api.post<LoginData>('/login/wallet-login', body),
  logout: () => api.post<Schemas['Empty']>('/login/logout'),
  forgotSendCode: (email: string) => api.post<CodeSent>('/password/forgot/send-code', { email }),
  forgotVerify: (email: string, code: string) => api.post<Schemas['ResetToken']>('/password/forgot/verify', { email, code }),
  forgotReset: (resetToken: string, password: string, confirmPassword: string) =>
    api.post<Schemas['Empty']>('/password/forgot/reset', { resetToken, password, confirmPassword }),
};
