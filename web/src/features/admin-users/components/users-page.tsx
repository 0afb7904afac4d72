/**
 * The back-office's users: every user, newest first, or a search (a UID exactly, or a part of
 * a username or e-mail in any case, newest first); a user opens with their figures, live
 * sessions and the actions the role allows.
 */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Pager } from '@/components/pager';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { type Page, errorMessage } from '@/lib/api-client';
import { formatDateTime, formatMoney } from '@/lib/format';
import { adminCan, useAdminSession } from '@/stores/admin-session';

import { type AdminUser, USERS_PAGE_SIZE, fetchUsers } from '../api';
import { UserDialog } from './user-dialog';

export function UsersPage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const canAct = useAdminSession((s) => adminCan(s.admin, 'users:write'));
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const [listed, setListed] = useState<Page<AdminUser> | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [open, setOpen] = useState<number | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    setFailure(null);
    fetchUsers(query, page, controller.signal)
      .then(setListed)
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(e));
      });
    return () => controller.abort();
  }, [query, page, reload]);

  const again = useCallback(() => setReload((n) => n + 1), []);
  const search = (event: FormEvent) => {
    event.preventDefault();
    setQuery(typed.trim());
    setPage(1);
    setListed(null);
  };

  return (
    <div className="admin-page">
      <h1 className="page-title">{t('admin.nav.users')}</h1>
      <form className="admin-search" role="search" onSubmit={search}>
        <label className="sr-only" htmlFor="admin-user-search">
          {t('admin.users.search')}
        </label>
        <input id="admin-user-search" className="input" type="search" value={typed} maxLength={100} placeholder={t('admin.users.searchHint')} aria-describedby="admin-user-search-hint" onChange={(e) => setTyped(e.target.value)} />
        <button type="submit" className="btn btn-primary">
          {t('admin.users.searchButton')}
        </button>
        <p id="admin-user-search-hint" className="field-hint admin-search-hint">
          {t('admin.users.searchExplain')}
        </p>
      </form>
      {failure ? (
        <ErrorState text={failure} onRetry={again} />
      ) : !listed ? (
        <SkeletonRows rows={5} columns={4} />
      ) : listed.items.length === 0 ? (
        <EmptyState text={t(query ? 'admin.users.noneFound' : 'admin.users.none')} />
      ) : (
        <>
          <ul className="admin-orders">
            {listed.items.map((u) => (
              <li key={u.user.uid}>
                <button type="button" className="admin-card admin-user-row" onClick={() => setOpen(u.user.uid)} aria-label={t('admin.users.open', { name: u.user.username, uid: u.user.uid })}>
                  <span className="num">UID {u.user.uid}</span>
                  <strong dir="auto">{u.user.username}</strong>
                  <span className="muted" dir="ltr">
                    {u.user.email ?? '—'}
                  </span>
                  <span className="num">{formatMoney(u.available, lang)} USDT</span>
                  <span className="muted">{formatDateTime(u.user.joinTime, lang)}</span>
                  {u.user.frozen && <span className="admin-status admin-status-rejected">{t('admin.users.stateFrozen')}</span>}
                </button>
              </li>
            ))}
          </ul>
          <Pager page={page} total={listed.total} pageSize={USERS_PAGE_SIZE} onPage={setPage} />
        </>
      )}
      {open !== null && <UserDialog uid={open} canAct={canAct} onClose={() => setOpen(null)} onChanged={again} />}
    </div>
  );
}
