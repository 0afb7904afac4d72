/** Values tests share: the site's settings and a user as the server sends them. */
import type { User } from '@/stores/session';
import type { SiteInfo } from '@/stores/site';

export function siteInfo(patch: Partial<SiteInfo> = {}): SiteInfo {
  return {
    logo: '',
    siteName: 'Trading Pro',
    siteDescription: '',
    emailLogin: true,
    walletLogin: true,
    customerService: { enabled: false, serviceLink: '' },
    inviteCodeRequired: false,
    ...patch,
  };
}

export function testUser(username = 'alice_1', patch: Partial<User> = {}): User {
  return {
    uid: 3,
    username,
    nickname: '',
    avatar: '',
    bio: '',
    phone: '',
    email: 'alice@example.com',
    emailVerified: true,
    lastLogin: 0,
    joinTime: 0,
    inviteCode: 'ABCDEFGH',
    loginType: username.startsWith('wallet_') ? 'wallet' : 'account',
    twoFactor: false,
    hasPassword: true,
    frozen: false,
    ...patch,
  };
}
