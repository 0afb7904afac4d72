/**
 * Wallet sign-in (spec §2, §8; decisions §6): choose MetaMask, TronLink or Trust Wallet, then
 * the wallet gives its address and signs the server's one-time message. A connecting flag
 * blocks repeated attempts. On a phone without the wallet, the wallet's app is opened with
 * this page; if it has not opened after about 3 s, the store download is offered.
 */
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { errorMessage } from '@/lib/api-client';

import { authApi } from '../api';
import { useFinishLogin } from '../session';
import {
  STORE_LINKS,
  WALLETS,
  WALLET_APP_TIMEOUT_MS,
  WALLET_MESSAGE,
  WalletError,
  type WalletKind,
  connectWallet,
  deepLink,
  isInstalled,
  signMessage,
} from '../wallets';
import { FormFailure } from './form-parts';

function isMobileDevice(): boolean {
  const data = (navigator as Navigator & { userAgentData?: { mobile?: boolean } }).userAgentData;
  return data?.mobile ?? /Android|iPhone|iPad|iPod|Mobile/i.test(navigator.userAgent);
}

export function WalletLogin({ remember, extras }: { remember: boolean; extras: ReactNode }) {
  const { t } = useTranslation();
  const finish = useFinishLogin();
  const [selected, setSelected] = useState<WalletKind | null>(null);
  const [connecting, setConnecting] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [storeOffer, setStoreOffer] = useState<WalletKind | null>(null);
  const busy = useRef(false);
  const appTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    const onHidden = () => {
      // The wallet's app came to the front: no store offer.
      if (document.visibilityState === 'hidden' && appTimer.current) clearTimeout(appTimer.current);
    };
    document.addEventListener('visibilitychange', onHidden);
    return () => {
      document.removeEventListener('visibilitychange', onHidden);
      if (appTimer.current) clearTimeout(appTimer.current);
    };
  }, []);

  const openApp = (kind: WalletKind) => {
    const label = WALLETS.find((w) => w.kind === kind)?.label ?? kind;
    setStatus(t('auth.wallet.openApp', { wallet: label }));
    appTimer.current = setTimeout(() => {
      setStatus(null);
      setStoreOffer(kind);
    }, WALLET_APP_TIMEOUT_MS);
    window.location.href = deepLink(kind, window.location.href);
  };

  const connect = async () => {
    setFailure(null);
    setStoreOffer(null);
    const wallet = WALLETS.find((w) => w.kind === selected);
    if (!wallet) {
      setFailure(t('auth.validation.selectChain'));
      return;
    }
    if (busy.current) return;
    if (!isInstalled(wallet.kind)) {
      if (isMobileDevice()) openApp(wallet.kind);
      else setFailure(t(WALLET_MESSAGE['not-installed']));
      return;
    }
    busy.current = true;
    setConnecting(true);
    try {
      setStatus(t('auth.wallet.connecting'));
      const address = await connectWallet(wallet.kind);
      const { nonce, message } = await authApi.walletNonce(wallet.chain, address);
      setStatus(t('auth.wallet.signPrompt'));
      const signature = await signMessage(wallet.kind, address, message);
      finish(await authApi.walletLogin({ chain: wallet.chain, address, signature, nonce, remember }));
    } catch (error) {
      setFailure(error instanceof WalletError ? t(WALLET_MESSAGE[error.reason]) : errorMessage(error, 'auth.wallet.failed'));
    } finally {
      busy.current = false;
      setConnecting(false);
      setStatus(null);
    }
  };

  const offered = storeOffer ? WALLETS.find((w) => w.kind === storeOffer) : undefined;
  return (
    <div>
      <FormFailure text={failure} />
      <fieldset className="wallet-choices">
        <legend className="field-label">{t('auth.wallet.choose')}</legend>
        {WALLETS.map((wallet) => (
          <label key={wallet.kind} className={selected === wallet.kind ? 'wallet-choice selected' : 'wallet-choice'}>
            <input type="radio" name="wallet" value={wallet.kind} checked={selected === wallet.kind} onChange={() => setSelected(wallet.kind)} disabled={connecting} />
            <span className={`wallet-logo wallet-logo-${wallet.kind}`} aria-hidden="true" />
            <span>{wallet.label}</span>
          </label>
        ))}
      </fieldset>
      {status && (
        <div className="form-note" role="status">
          {status}
        </div>
      )}
      {offered && (
        <div className="form-note" role="status">
          <p>{t('auth.wallet.download', { wallet: offered.label })}</p>
          <a className="btn btn-secondary" href={STORE_LINKS[offered.kind]} target="_blank" rel="noopener noreferrer">
            {t('auth.wallet.downloadButton', { wallet: offered.label })}
          </a>
        </div>
      )}
      {extras}
      <button type="button" className="btn btn-primary btn-block" onClick={() => void connect()} disabled={connecting}>
        {connecting ? t('auth.wallet.connecting') : t('auth.wallet.connect')}
      </button>
    </div>
  );
}
