/**
 * Profile (spec §2): the avatar, uploaded with its progress percentage (the spec's upload
 * call); nickname, bio and phone; the e-mail, with a code to verify it, or to add one for a
 * wallet user who has none (so they can be certified, reset a password and sign in by
 * e-mail); last login and join time.
 */
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Avatar } from '@/components/avatar';
import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { SendCodeButton } from '@/components/send-code-button';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useSubmit } from '@/lib/use-submit';
import { type User, useSession } from '@/stores/session';
import { toast } from '@/stores/toast';
import type { UserView } from '@/types/api';

import { PHONE, profileApi } from '../api';

const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const AVATAR_BYTES_MAX = 5 * 1024 * 1024;

function AvatarUpload({ user, onUser }: { user: User; onUser(user: UserView): void }) {
  const { t } = useTranslation();
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const choose = async (file: File | undefined) => {
    if (!file) return;
    if (!AVATAR_TYPES.includes(file.type)) return setError(t('profile.avatarType'));
    if (file.size > AVATAR_BYTES_MAX) return setError(t('profile.avatarSize'));
    setError(null);
    setProgress(0);
    try {
      onUser(await profileApi.avatar(file, { onProgress: setProgress }));
      toast.success(t('profile.avatarSaved'));
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setProgress(null);
    }
  };
  const name = user.nickname || user.username;
  return (
    <div className="profile-avatar">
      <Avatar name={name} src={user.avatar || undefined} size={72} />
      <div>
        <label className="btn btn-secondary btn-small">
          {t('profile.changeAvatar')}
          <input type="file" className="sr-only" accept={AVATAR_TYPES.join(',')} onChange={(e) => void choose(e.target.files?.[0])} />
        </label>
        {progress !== null && (
          <div className="upload-progress">
            <progress max={100} value={progress} aria-label={t('profile.uploadProgress')} />
            <span className="num" aria-live="polite">
              {t('profile.uploading', { percent: progress })}
            </span>
          </div>
        )}
        {error && (
          <div className="field-error" role="alert">
            {error}
          </div>
        )}
      </div>
    </div>
  );
}

function EmailSection({ user, onUser }: { user: User; onUser(user: UserView): void }) {
  const { t } = useTranslation();
  const adding = !user.email;
  const [email, setEmail] = useState(user.email ?? '');
  const [emailError, setEmailError] = useState<string | undefined>();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const request = useSubmit();

  if (user.email && user.emailVerified) {
    return (
      <div className="profile-email">
        <span className="field-label">{t('profile.email')}</span>
        <div>
          <span className="ltr">{user.email}</span> <span className="pill pill-up">{t('profile.verified')}</span>
        </div>
      </div>
    );
  }
  const verify = async (event: FormEvent) => {
    event.preventDefault();
    if (!sentTo || request.busy) return;
    if (!/^\d{6}$/.test(code.trim())) return request.setError(t('auth.validation.codeInvalid'));
    await request.run(async () => {
      const next = await profileApi.verify(code.trim(), adding || sentTo !== user.email ? sentTo : undefined);
      onUser(next);
      toast.success(t('profile.emailVerified'));
    });
  };
  return (
    <form className="profile-email form" noValidate onSubmit={verify}>
      <Field
        label={t(adding ? 'profile.addEmail' : 'profile.email')}
        type="email"
        autoComplete="email"
        dir="ltr"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={emailError ? t(emailError) : undefined}
        hint={adding ? t('profile.addEmailHint') : t('profile.notVerified')}
        after={
          <SendCodeButton
            email={email}
            send={(address) => profileApi.sendCode(address === user.email ? undefined : address)}
            onEmailError={setEmailError}
            onFailure={request.setError}
            onSent={setSentTo}
          />
        }
      />
      {sentTo && (
        <>
          <p className="muted small" role="status">
            {t('profile.codeSent', { email: sentTo })}
          </p>
          <Field label={t('profile.code')} inputMode="numeric" autoComplete="one-time-code" dir="ltr" maxLength={6} value={code} onChange={(e) => setCode(e.target.value)} />
          <button type="submit" className="btn btn-primary" disabled={request.busy}>
            {t('profile.verify')}
          </button>
        </>
      )}
      <FormError text={request.error} />
    </form>
  );
}

export function Profile() {
  const { t, i18n } = useTranslation();
  const user = useSession((s) => s.user);
  const setUser = useSession((s) => s.setUser);
  const [form, setForm] = useState({ nickname: user?.nickname ?? '', bio: user?.bio ?? '', phone: user?.phone ?? '' });
  const [phoneError, setPhoneError] = useState<string | null>(null);
  const request = useSubmit();
  if (!user) return null;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (request.busy) return;
    const badPhone = !PHONE.test(form.phone.trim());
    setPhoneError(badPhone ? t('profile.phoneInvalid') : null);
    if (badPhone) return;
    await request.run(async () => {
      setUser(await profileApi.update({ nickname: form.nickname.trim(), bio: form.bio.trim(), phone: form.phone.trim() }));
      toast.success(t('profile.saved'));
    });
  };

  return (
    <section className="profile" aria-labelledby="profile-title">
      <h1 id="profile-title" className="page-title">
        {t('profile.title')}
      </h1>
      <div className="card">
        <AvatarUpload user={user} onUser={setUser} />
        <dl className="detail-pairs profile-facts">
          <div>
            <dt>{t('profile.uid')}</dt>
            <dd className="num">{user.uid}</dd>
          </div>
          <div>
            <dt>{t('profile.username')}</dt>
            <dd className="ltr">{user.username}</dd>
          </div>
          <div>
            <dt>{t('profile.lastLogin')}</dt>
            <dd>{user.lastLogin ? formatDateTime(user.lastLogin, i18n.language) : '--'}</dd>
          </div>
          <div>
            <dt>{t('profile.joined')}</dt>
            <dd>{formatDateTime(user.joinTime, i18n.language)}</dd>
          </div>
        </dl>
      </div>
      <form className="card form" noValidate onSubmit={save}>
        <Field label={t('profile.nickname')} maxLength={100} value={form.nickname} onChange={(e) => setForm({ ...form, nickname: e.target.value })} />
        <div className="field">
          <label className="field-label" htmlFor="profile-bio">
            {t('profile.bio')}
          </label>
          <textarea id="profile-bio" className="input textarea" maxLength={500} rows={3} value={form.bio} onChange={(e) => setForm({ ...form, bio: e.target.value })} />
        </div>
        <Field label={t('profile.phone')} type="tel" autoComplete="tel" dir="ltr" value={form.phone} onChange={(e) => setForm({ ...form, phone: e.target.value })} error={phoneError} />
        <FormError text={request.error} />
        <button type="submit" className="btn btn-primary" disabled={request.busy}>
          {t('profile.save')}
        </button>
      </form>
      <div className="card">
        <EmailSection key={`${user.email ?? ''}-${user.emailVerified}`} user={user} onUser={setUser} />
      </div>
    </section>
  );
}
