/** The signed-in user's profile: avatar, nickname, bio, phone, and adding or verifying an e-mail. */
import { api } from '@/lib/api';
import { type UploadOptions, upload } from '@/lib/upload';
import type { User } from '@/stores/session';

export const profileApi = {
  update: (body: { nickname: string; bio: string; phone: string }) => api.put<User>('/user/profile', body),
  avatar: (file: File, options: UploadOptions) => upload<User>(api, '/user/avatar', file, options),
  /** A code to the address on file (no argument) or to a new one. */
  sendCode: (email?: string) => api.post<{ resendAfter: number }>('/user/email/send-code', { email: email ?? '' }),
  verify: (code: string, email?: string) => api.post<User>('/user/email/verify', { code, email: email ?? '' }),
};

/** What the server accepts for a phone: digits, spaces and + - ( ), up to 100. */
export const PHONE = /^[0-9 +()-]{0,100}$/;
