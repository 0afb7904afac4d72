/**
 * Game rules (decisions §1, §2): the published trading rules, one per duration: payout rate,
 * stake limits, fee, offered or not. A change applies to new contracts only; outcomes come
 * from market prices alone, and nothing on this page can choose one. Below them, early close's
 * terms (decisions §11), with a spread for each of the rules' durations.
 */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { EmptyState, ErrorState, SkeletonRows } from '@/components/states';
import { errorMessage } from '@/lib/api-client';
import { formatDuration, formatMoney, formatRate } from '@/lib/format';
import { adminCan, useAdminSession } from '@/stores/admin-session';
import { toast } from '@/stores/toast';

import { type Rule, fetchRules, removeRule } from '../api';
import { EarlyCloseSection } from './early-close-section';
import { RuleDialog } from './rule-dialog';

export function RulesPage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const canAct = useAdminSession((s) => adminCan(s.admin, 'rules:write'));
  const [rules, setRules] = useState<Rule[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const [removing, setRemoving] = useState<Rule | null>(null);
  const [removeFailure, setRemoveFailure] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    setFailure(null);
    fetchRules(controller.signal)
      .then(setRules)
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setFailure(errorMessage(e));
      });
    return () => controller.abort();
  }, [reload]);

  const again = useCallback(() => setReload((n) => n + 1), []);
  const saved = (next: Rule[]) => {
    setRules([...next].sort((a, b) => a.duration - b.duration));
    setEditing(null);
    toast.success(t('admin.rules.saved'));
  };
  const confirmRemove = async () => {
    if (!removing) return;
    try {
      setRules(await removeRule(removing.duration));
      toast.success(t('admin.rules.removed', { duration: formatDuration(removing.duration, t) }));
      setRemoving(null);
    } catch (e) {
      setRemoveFailure(errorMessage(e));
    }
  };

  const sorted = rules ? [...rules].sort((a, b) => a.duration - b.duration) : null;
  return (
    <div className="admin-page">
      <h1 className="page-title">{t('admin.nav.rules')}</h1>
      <p className="admin-card admin-note">{t('admin.rules.about')}</p>
      {canAct && (
        <button type="button" className="btn btn-primary admin-add" onClick={() => setEditing('new')}>
          {t('admin.rules.add')}
        </button>
      )}
      {failure ? (
        <ErrorState text={failure} onRetry={again} />
      ) : !sorted ? (
        <SkeletonRows rows={6} columns={5} />
      ) : sorted.length === 0 ? (
        <EmptyState text={t('admin.rules.none')} />
      ) : (
        <div className="admin-card admin-table-wrap">
          <table className="admin-table">
            <thead>
              <tr>
                <th scope="col">{t('admin.rules.fields.duration')}</th>
                <th scope="col">{t('admin.rules.fields.payoutRate')}</th>
                <th scope="col">{t('admin.rules.stake')}</th>
                <th scope="col">{t('admin.rules.fields.feeRate')}</th>
                <th scope="col">{t('admin.rules.fields.enabled')}</th>
                {canAct && <th scope="col">{t('admin.rules.actions')}</th>}
              </tr>
            </thead>
            <tbody>
              {sorted.map((rule) => {
                const name = formatDuration(rule.duration, t);
                return (
                  <tr key={rule.duration}>
                    <th scope="row">{name}</th>
                    <td className="num">{formatRate(rule.payoutRate, lang)}</td>
                    <td className="num">
                      {formatMoney(rule.minAmount, lang)} – {formatMoney(rule.maxAmount, lang)}
                    </td>
                    <td className="num">{formatRate(rule.feeRate, lang)}</td>
                    <td>{t(rule.enabled ? 'admin.rules.on' : 'admin.rules.off')}</td>
                    {canAct && (
                      <td className="admin-row-actions">
                        <button type="button" className="btn btn-small btn-secondary" aria-label={t('admin.rules.editOne', { duration: name })} onClick={() => setEditing(rule)}>
                          {t('admin.rules.edit')}
                        </button>
                        <button type="button" className="btn btn-small btn-secondary" aria-label={t('admin.rules.removeOne', { duration: name })} onClick={() => (setRemoveFailure(null), setRemoving(rule))}>
                          {t('admin.rules.remove')}
                        </button>
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <EarlyCloseSection durations={sorted?.map((rule) => rule.duration) ?? []} />
      {editing && <RuleDialog rule={editing === 'new' ? null : editing} onClose={() => setEditing(null)} onSaved={saved} />}
      {removing && (
        <Dialog open title={t('admin.rules.removeTitle', { duration: formatDuration(removing.duration, t) })} onClose={() => setRemoving(null)}>
          <p>{t('admin.rules.removeExplain')}</p>
          {removeFailure && (
            <div className="form-error" role="alert">
              {removeFailure}
            </div>
          )}
          <div className="admin-action-buttons">
            <button type="button" className="btn btn-secondary" onClick={() => setRemoving(null)}>
              {t('app.cancel')}
            </button>
            <button type="button" className="btn btn-down" onClick={() => void confirmRemove()}>
              {t('admin.rules.remove')}
            </button>
          </div>
        </Dialog>
      )}
    </div>
  );
}
