import { AuthPage } from '@/features/auth';

/** `/login/register`: the Register tab, with the invite code from `?code=`. */
export function Component() {
  return <AuthPage tab="register" />;
}
