import { Profile } from '@/features/profile';

/** `/account/profile` (chunk ProfilePage): avatar, nickname, bio, phone, e-mail. */
export function Component() {
  return (
    <div className="page page-narrow">
      <Profile />
    </div>
  );
}
