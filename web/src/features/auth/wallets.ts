/**
 * Wallet sign-in through the providers wallets inject into the page (decisions §6): MetaMask
 * and Trust Wallet speak EIP-1193 (`eth_requestAccounts`, `personal_sign`), TronLink its own
 * `tronLink.request` and `tronWeb.trx.signMessageV2`. The server's one-time message is
 * signed; the server recovers the address from the signature.
 */
import type { WalletChain } from './api';

export type WalletKind = 'metamask' | 'tronlink' | 'trust';

export const WALLETS: ReadonlyArray<{ kind: WalletKind; chain: WalletChain; label: string }> = [
  { kind: 'metamask', chain: 'eth', label: 'MetaMask' },
  { kind: 'tronlink', chain: 'tron', label: 'TronLink' },
  { kind: 'trust', chain: 'trust', label: 'Trust Wallet' },
];

/** Why a wallet step failed; each has a message in the catalogue (spec §8). */
export type WalletFailure = 'not-installed' | 'rejected' | 'failed' | 'unsupported' | 'tron-not-ready' | 'no-address';

export class WalletError extends Error {
  readonly reason: WalletFailure;
  constructor(reason: WalletFailure) {
    super(reason);
    this.name = 'WalletError';
    this.reason = reason;
  }
}

export const WALLET_MESSAGE: Record<WalletFailure, string> = {
  'not-installed': 'auth.wallet.notInstalled',
  rejected: 'auth.wallet.rejected',
  failed: 'auth.wallet.failed',
  unsupported: 'auth.wallet.unsupported',
  'tron-not-ready': 'auth.wallet.tronNotReady',
  'no-address': 'auth.wallet.noAddress',
};

interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
  isMetaMask?: boolean;
  isTrust?: boolean;
  isTrustWallet?: boolean;
  providers?: Eip1193[];
}

interface TronWeb {
  ready?: boolean;
  defaultAddress?: { base58?: string | false };
  trx: { signMessageV2(message: string): Promise<string> };
}

interface TronLink {
  ready?: boolean;
  tronWeb?: TronWeb | false;
  request(args: { method: string }): Promise<{ code?: number; message?: string } | undefined>;
}

interface WalletWindow {
  ethereum?: Eip1193;
  trustwallet?: Eip1193 & { ethereum?: Eip1193 };
  tronLink?: TronLink;
  tronWeb?: TronWeb;
}

function walletWindow(): WalletWindow {
  return window as unknown as WalletWindow;
}

const isTrust = (p: Eip1193) => Boolean(p.isTrust || p.isTrustWallet);

/** The injected provider of a wallet, also when several wallets share `window.ethereum`. */
export function ethProvider(kind: 'metamask' | 'trust'): Eip1193 | null {
  const w = walletWindow();
  const candidates = [...(w.ethereum?.providers ?? []), ...(w.ethereum ? [w.ethereum] : [])];
  if (kind === 'trust') {
    return w.trustwallet?.ethereum ?? w.trustwallet ?? candidates.find(isTrust) ?? null;
  }
  return candidates.find((p) => p.isMetaMask && !isTrust(p)) ?? null;
}

export function isInstalled(kind: WalletKind): boolean {
  if (kind === 'tronlink') return Boolean(walletWindow().tronLink || walletWindow().tronWeb);
  return ethProvider(kind) !== null;
}

function isRejection(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === 4001 || (typeof e?.message === 'string' && /user rejected|user denied/i.test(e.message));
}

function failure(error: unknown): WalletError {
  if (error instanceof WalletError) return error;
  return new WalletError(isRejection(error) ? 'rejected' : 'failed');
}

function utf8Hex(text: string): string {
  return `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function tronWeb(): TronWeb | null {
  const w = walletWindow();
  const fromLink = w.tronLink?.tronWeb;
  return (fromLink || w.tronWeb) ?? null;
}

/** Asks the wallet for its address (the wallet may show a prompt). */
export async function connectWallet(kind: WalletKind): Promise<string> {
  try {
    if (kind === 'tronlink') {
      const link = walletWindow().tronLink;
      if (!link && !walletWindow().tronWeb) throw new WalletError('not-installed');
      if (link) {
        const answer = await link.request({ method: 'tron_requestAccounts' });
        if (answer?.code === 4001) throw new WalletError('rejected');
      }
      const web = tronWeb();
      if (!web || web.ready === false) throw new WalletError('tron-not-ready');
      const address = web.defaultAddress?.base58;
      if (!address) throw new WalletError('no-address');
      return address;
    }
    const provider = ethProvider(kind);
    if (!provider) throw new WalletError('not-installed');
    const accounts = await provider.request({ method: 'eth_requestAccounts' });
    const address = Array.isArray(accounts) ? accounts[0] : undefined;
    if (typeof address !== 'string' || !address) throw new WalletError('no-address');
    return address;
  } catch (error) {
    throw failure(error);
  }
}

/** Signs the server's sign-in message with the wallet's key. */
export async function signMessage(kind: WalletKind, address: string, message: string): Promise<string> {
  try {
    if (kind === 'tronlink') {
      const web = tronWeb();
      if (!web) throw new WalletError('tron-not-ready');
      return await web.trx.signMessageV2(message);
    }
    const provider = ethProvider(kind);
    if (!provider) throw new WalletError('not-installed');
    const signature = await provider.request({ method: 'personal_sign', params: [utf8Hex(message), address] });
    if (typeof signature !== 'string') throw new WalletError('failed');
    return signature;
  } catch (error) {
    throw failure(error);
  }
}

/** The wallet's current address without a prompt, or null when none is connected. */
export async function connectedAddress(kind: WalletKind): Promise<string | null> {
  try {
    if (kind === 'tronlink') return tronWeb()?.defaultAddress?.base58 || null;
    const provider = ethProvider(kind);
    if (!provider) return null;
    const accounts = await provider.request({ method: 'eth_accounts' });
    return Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0] : null;
  } catch {
    return null;
  }
}

/** The wallet kind and address fragment of a wallet user's name `wallet_{chain}_{fragment}`. */
export function walletOfUsername(username: string): { kind: WalletKind; fragment: string } | null {
  const match = /^wallet_(eth|tron|trust)_([a-z0-9]+)$/i.exec(username);
  if (!match) return null;
  const kind: WalletKind = match[1] === 'eth' ? 'metamask' : match[1] === 'tron' ? 'tronlink' : 'trust';
  return { kind, fragment: match[2]!.toLowerCase() };
}

/** Whether an address is the one a wallet username was made from. */
export function addressMatches(address: string, fragment: string): boolean {
  return address.replace(/^0x/i, '').toLowerCase().includes(fragment);
}

const DEEP_LINKS: Record<WalletKind, (url: string) => string> = {
  metamask: (url) => `https://metamask.app.link/dapp/${url.replace(/^https?:\/\//, '')}`,
  trust: (url) => `https://link.trustwallet.com/open_url?coin_id=60&url=${encodeURIComponent(url)}`,
  tronlink: (url) =>
    `tronlinkoutside://pull.activity?param=${encodeURIComponent(
      JSON.stringify({ url, action: 'open', protocol: 'tronlink', version: '1.0' }),
    )}`,
};

export const STORE_LINKS: Record<WalletKind, string> = {
  metamask: 'https://metamask.io/download/',
  trust: 'https://trustwallet.com/download',
  tronlink: 'https://www.tronlink.org/dlDetails/',
};

/** The link that opens this page inside the wallet's mobile app. */
export function deepLink(kind: WalletKind, pageUrl: string): string {
  return DEEP_LINKS[kind](pageUrl);
}

/** Wallet app open timeout (spec §9: about 3 s). */
export const WALLET_APP_TIMEOUT_MS = 3_000;
