import { AuthPage } from '@/features/auth';

/** `/login`: the Login tab. */
export function Component() {
  return <AuthPage tab="login" />;
}
