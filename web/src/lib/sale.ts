/**
 * Early close (decisions §11): an open contract's offer now, and its sale back at the offer
 * the trader saw. The server sells at the offer of the moment when that is at least the one
 * sent, and otherwise refuses with `OFFER_CHANGED` and the new offer: nothing is sold, and
 * nothing here ever sends a sale again by itself.
 */
import type { Schemas } from '@/types/api';

import { api } from './api';
import { ApiError } from './api-client';

/** A sale's figures as the engine priced it (a sold contract's record carries it). */
export type SaleRow = Schemas['SaleRow'];

/** What a contract's sell action shows: the offer (USDT), or why there is none. */
export interface SaleOffer {
  offer: string | null;
  reason: string | null;
}

/** The reason shown when the server gave none. */
export const NO_OFFER_REASON = 'unavailable';

export const saleApi = {
  offer: (id: number) => api.get<Schemas['Offer']>(`/trade/contracts/${id}/offer`),
  sell: (id: number, offer: string) => api.post<Schemas['Sold']>(`/trade/contracts/${id}/sell`, { offer } satisfies Schemas['SellBody']),
};

/** An offer, or its reason when there is none. */
export function saleOffer(offer: string | null | undefined, reason: string | null | undefined): SaleOffer {
  return offer ? { offer, reason: null } : { offer: null, reason: reason || NO_OFFER_REASON };
}

/**
 * The offer now of a contract (one question, asked when no `order.offer` frame came yet), with
 * a refusal's reason (`not_entered`) as its reason; null when the question itself failed.
 */
export async function fetchOffer(id: number): Promise<SaleOffer | null> {
  try {
    const answer = await saleApi.offer(id);
    return saleOffer(answer.offer, answer.reason);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'SALE_UNAVAILABLE') return saleOffer(null, dataText(error, 'reason'));
    return null;
  }
}

/** A text figure of a refusal's `data` (`offer` of `OFFER_CHANGED`, `reason` of `SALE_UNAVAILABLE`). */
export function dataText(error: ApiError, name: string): string | null {
  const value = error.data?.[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A probability in millionths (the sale's Φ(z)) as a fraction string ("0.523456"), exactly. */
export function millionths(value: number): string {
  const whole = Math.trunc(Math.abs(value));
  const sign = value < 0 ? '-' : '';
  return `${sign}${Math.floor(whole / 1_000_000)}.${String(whole % 1_000_000).padStart(6, '0')}`;
}
