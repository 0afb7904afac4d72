/**
 * What a role may do, read from its permissions alone: one entry per area, in the back-office's
 * order, with the access (view, change, or both) and what the area covers, in the catalogue's
 * words.
 */
import { useId } from 'react';
import { useTranslation } from 'react-i18next';

import { accessKey, groupPermissions } from '../permissions';

export function RolePowers({ permissions }: { permissions: readonly string[] }) {
  const { t } = useTranslation();
  const titleId = useId();
  const areas = groupPermissions(permissions);
  return (
    <section className="admin-powers" aria-labelledby={titleId}>
      <h3 id={titleId} className="admin-powers-title">
        {t('admin.account.powers')}
      </h3>
      {areas.length === 0 ? (
        <p className="muted">{t('admin.account.powersNone')}</p>
      ) : (
        <ul className="admin-powers-list">
          {areas.map((access) => (
            <li key={access.area} className="admin-power">
              <span className="admin-power-head">
                <strong>{t(`admin.account.areas.${access.area}`, { defaultValue: access.area })}</strong>
                <span className={access.write ? 'admin-status admin-status-completed' : 'admin-status'}>{t(accessKey(access))}</span>
              </span>
              <span className="muted small">{t(`admin.account.areaAbout.${access.area}`, { defaultValue: '' })}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
