/**
 * Reset the demo account to its starting virtual balance, after a confirmation. The server
 * refuses while demo contracts are open; the refusal is shown as it comes.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Dialog } from '@/components/dialog';
import { FormError } from '@/components/form-error';
import { useSubmit } from '@/lib/use-submit';
import { toast } from '@/stores/toast';
import { useWallet } from '@/stores/wallet';

import { walletApi } from '../api';

export function DemoReset() {
  const { t } = useTranslation();
  const account = useWallet((s) => s.account);
  const [confirming, setConfirming] = useState(false);
  const request = useSubmit();
  if (account !== 'demo') return null;
  const reset = () =>
    request.run(async () => {
      await walletApi.resetDemo();
      await useWallet.getState().load();
      setConfirming(false);
      toast.success(t('wallet.demo.done'));
    });
  return (
    <>
      <button type="button" className="btn btn-secondary btn-block" onClick={() => setConfirming(true)}>
        {t('wallet.demo.reset')}
      </button>
      <Dialog open={confirming} title={t('wallet.demo.reset')} onClose={() => setConfirming(false)}>
        <p>{t('wallet.demo.confirm')}</p>
        <FormError text={request.error} />
        <div className="dialog-actions">
          <button type="button" className="btn btn-secondary" onClick={() => setConfirming(false)}>
            {t('app.cancel')}
          </button>
          <button type="button" className="btn btn-primary" disabled={request.busy} onClick={() => void reset()}>
            {t('wallet.demo.resetNow')}
          </button>
        </div>
      </Dialog>
    </>
  );
}
