/**
 * Two small parts of the account centre (spec §2 modals): About Us, the operator's
 * description (spec §1: marketing text, shown as text, not behaviour), and customer service:
 * the working hours the operator set (in UTC; the spec's 9:00-21:00 until the server answers),
 * on the item itself and in its dialog, and the chat link when the operator has turned it on.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { DEFAULT_SITE_NAME, useSite, useSupportHours } from '@/stores/site';

export function AboutAndService() {
  const { t } = useTranslation();
  const site = useSite((s) => s.info);
  const hours = useSupportHours();
  const [open, setOpen] = useState<'about' | 'service' | null>(null);
  const name = site?.siteName || DEFAULT_SITE_NAME;
  const service = site?.customerService;
  const close = () => setOpen(null);
  return (
    <>
      <button type="button" className="account-item account-link link-button-plain" onClick={() => setOpen('about')}>
        {t('account.about.title')}
      </button>
      <button type="button" className="account-item account-link link-button-plain" onClick={() => setOpen('service')}>
        {hours ? t('account.service.withHours', { hours }) : t('account.service.title')}
      </button>
      <Dialog open={open === 'about'} title={t('account.about.title')} onClose={close}>
        {site?.siteDescription && <p>{site.siteDescription}</p>}
        <p>{t('account.about.text', { name })}</p>
        <p className="muted small">{t('account.about.fair')}</p>
      </Dialog>
      <Dialog open={open === 'service'} title={t('account.service.title')} onClose={close}>
        {hours && (
          <p>
            {t('account.service.hours', { hours })}
          </p>
        )}
        {service?.enabled && service.serviceLink ? (
          <a className="btn btn-primary btn-block" href={service.serviceLink} target="_blank" rel="noopener noreferrer">
            {t('account.service.open')}
          </a>
        ) : (
          <p className="muted" role="status">
            {t('account.service.unavailable')}
          </p>
        )}
      </Dialog>
    </>
  );
}
