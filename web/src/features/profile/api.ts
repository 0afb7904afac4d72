/** The signed-in user's profile: avatar, nickname, bio, phone, and adding or verifying an e-mail. */
import { api } from '@/lib/api';
import { type UploadOptions, upload } from '@/lib/upload';
import type { Schemas, UserView } from '@/types/api';

export const profileApi = {
  update: (body: Schemas['ProfileBody']) => api.put<UserView>('/user/profile', body),
  avatar: (file: File, options: UploadOptions) => upload<UserView>(api, '/user/avatar', file, options),
  /** A code to the address on file (no argument) or to a new one. */
  sendCode: (email?: string) => api.post<Schemas['CodeSent']>('/user/email/send-code', { email: email ?? '' }),
  verify: (code: string, email?: string) => api.post<UserView>('/user/email/verify', { code, email: email ?? '' }),
};

/** What the server accepts for a phone: digits, spaces and + - ( ), up to 100. */
export const PHONE = /^[0-9 +()-]{0,100}$/;
