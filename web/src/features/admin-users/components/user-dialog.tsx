/**
 * One user in the back-office: profile, real balances, open and recent contracts; freezing
 * or unfreezing and adjusting the real balance, each with a required reason (audited; the
 * user sees an adjustment bill), for an admin who may act on users.
 */
import { type FormEvent, useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { Field } from '@/components/field';
import { FormError } from '@/components/form-error';
import { ErrorState, Spinner } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime, formatMoney } from '@/lib/format';
import { useSubmit } from '@/lib/use-submit';
import { toast } from '@/stores/toast';
import type { ContractRow } from '@/types/api';

import { type AdminUser, type AdminUserDetail, type AdminUserSession, adjustBalance, checkAdjustment, fetchUser, fetchUserContracts, setFrozen } from '../api';

interface Loaded {
  user: AdminUserDetail;
  contracts: ContractRow[];
}

/** Where and since when the user is signed in now, or that they are not. */
function Sessions({ sessions }: { sessions: AdminUserSession[] }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  return (
    <section aria-labelledby="admin-user-sessions">
      <h3 id="admin-user-sessions" className="admin-card-title">
        {t('admin.users.sessions', { count: sessions.length })}
      </h3>
      {sessions.length === 0 ? (
        <p className="muted" role="status">
          {t('admin.users.noSessions')}
        </p>
      ) : (
        <ul className="admin-user-sessions">
          {sessions.map((s) => (
            <li key={`${s.createdAt}-${s.ip}-${s.device}`}>
              <strong dir="auto">{s.device || t('admin.users.unknownDevice')}</strong>
              <span className="muted">
                {t('admin.users.sessionIp')} <bdi dir="ltr">{s.ip}</bdi>
              </span>
              <span>{t('admin.users.sessionSince', { time: formatDateTime(s.createdAt, lang) })}</span>
              <span className="muted">{t('admin.users.sessionUntil', { time: formatDateTime(s.expiresAt, lang) })}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Reason({ value, onChange, error }: { value: string; onChange(v: string): void; error?: string }) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id} className="field-label">
        {t('admin.users.reason')}
      </label>
      <textarea id={id} className="input admin-remark" rows={2} maxLength={500} value={value} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-e` : undefined} onChange={(e) => onChange(e.target.value)} />
      {error && (
        <div id={`${id}-e`} className="field-error" role="alert">
          {error}
        </div>
      )}
    </div>
  );
}

function FreezeForm({ user, onDone }: { user: AdminUser; onDone(): void }) {
  const { t } = useTranslation();
  const frozen = user.user.frozen;
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const request = useSubmit();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!reason.trim()) {
      setError(t('admin.users.reasonRequired'));
      return;
    }
    await request.run(async () => {
      await setFrozen(user.user.uid, !frozen, reason.trim());
      toast.success(t(frozen ? 'admin.users.unfrozen' : 'admin.users.frozenDone', { uid: user.user.uid }));
      setReason('');
      onDone();
    });
  };
  return (
    <form className="admin-card admin-user-form" onSubmit={(e) => void submit(e)} noValidate aria-label={t(frozen ? 'admin.users.unfreeze' : 'admin.users.freeze')}>
      <h3 className="admin-card-title">{t(frozen ? 'admin.users.unfreeze' : 'admin.users.freeze')}</h3>
      <p className="muted">{t(frozen ? 'admin.users.unfreezeExplain' : 'admin.users.freezeExplain')}</p>
      <Reason value={reason} onChange={(v) => (setReason(v), setError(undefined))} error={error} />
      <FormError text={request.error} />
      <button type="submit" className={frozen ? 'btn btn-primary' : 'btn btn-down'} disabled={request.busy}>
        {t(frozen ? 'admin.users.unfreeze' : 'admin.users.freeze')}
      </button>
    </form>
  );
}

function AdjustForm({ user, onDone }: { user: AdminUser; onDone(): void }) {
  const { t } = useTranslation();
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<{ amount?: string; reason?: string }>({});
  const request = useSubmit();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = checkAdjustment(amount, reason);
    setErrors(found);
    if (found.amount || found.reason) return;
    await request.run(async () => {
      await adjustBalance(user.user.uid, amount.trim(), reason.trim());
      toast.success(t('admin.users.adjusted', { uid: user.user.uid }));
      setAmount('');
      setReason('');
      onDone();
    });
  };
  return (
    <form className="admin-card admin-user-form" onSubmit={(e) => void submit(e)} noValidate aria-label={t('admin.users.adjust')}>
      <h3 className="admin-card-title">{t('admin.users.adjust')}</h3>
      <p className="muted">{t('admin.users.adjustExplain')}</p>
      <Field label={t('admin.users.amount')} name="amount" inputMode="decimal" dir="ltr" value={amount} placeholder="-10.00 / 25.00" onChange={(e) => (setAmount(e.target.value), setErrors({ ...errors, amount: undefined }))} error={errors.amount && t(errors.amount)} />
      <Reason value={reason} onChange={(v) => (setReason(v), setErrors({ ...errors, reason: undefined }))} error={errors.reason && t(errors.reason)} />
      <FormError text={request.error} />
      <button type="submit" className="btn btn-primary" disabled={request.busy}>
        {t('admin.users.adjust')}
      </button>
    </form>
  );
}

export function UserDialog({ uid, canAct, onClose, onChanged }: { uid: number; canAct: boolean; onClose(): void; onChanged(): void }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    Promise.all([fetchUser(uid, controller.signal), fetchUserContracts(uid, controller.signal)])
      .then(([user, contracts]) => setLoaded({ user, contracts: contracts.items }))
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(e));
      });
    return () => controller.abort();
  }, [uid, reload]);

  const changed = () => {
    setReload((n) => n + 1);
    onChanged();
  };
  const u = loaded?.user;
  return (
    <Dialog open title={t('admin.users.title', { uid })} onClose={onClose} className="admin-user-dialog">
      {failure ? (
        <ErrorState text={failure} />
      ) : !u ? (
        <Spinner />
      ) : (
        <div className="admin-user">
          <dl className="admin-order-fields">
            <div>
              <dt>{t('admin.users.username')}</dt>
              <dd dir="auto">{u.user.username}</dd>
            </div>
            <div>
              <dt>{t('admin.users.email')}</dt>
              <dd dir="ltr">{u.user.email ? `${u.user.email}${u.user.emailVerified ? ' ✓' : ''}` : '—'}</dd>
            </div>
            <div>
              <dt>{t('admin.users.state')}</dt>
              <dd>{t(u.user.frozen ? 'admin.users.stateFrozen' : 'admin.users.stateActive')}</dd>
            </div>
            <div>
              <dt>{t('admin.users.available')}</dt>
              <dd className="num">{formatMoney(u.available, lang)} USDT</dd>
            </div>
            <div>
              <dt>{t('admin.users.frozenAmount')}</dt>
              <dd className="num">{formatMoney(u.frozenAmount, lang)} USDT</dd>
            </div>
            <div>
              <dt>{t('admin.users.inPosition')}</dt>
              <dd className="num">{formatMoney(u.inPosition, lang)} USDT</dd>
            </div>
            <div>
              <dt>{t('admin.users.joined')}</dt>
              <dd>{formatDateTime(u.user.joinTime, lang)}</dd>
            </div>
            <div>
              <dt>{t('admin.users.lastLogin')}</dt>
              <dd>{u.user.lastLogin ? formatDateTime(u.user.lastLogin, lang) : '—'}</dd>
            </div>
            <div>
              <dt>{t('admin.users.inviter')}</dt>
              <dd className="num">{u.inviter ?? '—'}</dd>
            </div>
          </dl>
          <Sessions sessions={u.sessions ?? []} />
          <h3 className="admin-card-title">{t('admin.users.recentContracts', { open: u.openContracts })}</h3>
          {loaded.contracts.length === 0 ? (
            <p className="muted">{t('admin.users.noContracts')}</p>
          ) : (
            <ul className="admin-user-contracts">
              {loaded.contracts.map((c) => (
                <li key={c.id}>
                  <span className="num">#{c.id}</span> <span>{c.symbol}</span> <span>{t(`admin.users.direction.${c.direction}`)}</span>{' '}
                  <span className="num">{formatMoney(c.stake, lang)}</span> <span className="muted">{t(`admin.users.account.${c.account}`)}</span>{' '}
                  <span className={c.profit && c.profit.startsWith('-') ? 'down' : c.profit ? 'up' : 'muted'}>{c.profit ? formatMoney(c.profit, lang, true) : t(`admin.users.contractStatus.${c.status}`)}</span>
                </li>
              ))}
            </ul>
          )}
          {canAct && (
            <div className="admin-grid">
              <FreezeForm user={u} onDone={changed} />
              <AdjustForm user={u} onDone={changed} />
            </div>
          )}
        </div>
      )}
    </Dialog>
  );
}
