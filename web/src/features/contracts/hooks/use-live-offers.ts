/**
 * The early-close offers (decisions §11) of the open contracts a records page shows: the
 * latest `order.offer` frame per contract, or, for one that has had no frame yet, the answer
 * of one `GET .../offer`. A reconnect forgets them (frames were missed) and asks again.
 */
import { useEffect, useRef, useState } from 'react';

import { type SaleOffer, fetchOffer, saleOffer } from '@/lib/sale';
import { useWsEvent } from '@/lib/ws';
import type { OfferFrame } from '@/lib/ws-frames';

/** `ids`: the entered open contracts on screen. */
export function useLiveOffers(ids: readonly number[]): Record<number, SaleOffer> {
  const [offers, setOffers] = useState<Record<number, SaleOffer>>({});
  // Contracts already asked for (once each, until a reconnect).
  const asked = useRef(new Set<number>());
  // Bumped by a reconnect (answers asked before it are old) and on unmount.
  const generation = useRef(0);
  const [round, setRound] = useState(0);
  const key = ids.join(',');

  useWsEvent<OfferFrame>('order.offer', ({ data }) => setOffers((shown) => ({ ...shown, [data.contractId]: saleOffer(data.offer, data.reason) })));
  useWsEvent('resync', () => {
    generation.current += 1;
    asked.current.clear();
    setOffers({});
    setRound((n) => n + 1);
  });

  useEffect(() => {
    const asking = generation.current;
    for (const id of key ? key.split(',').map(Number) : []) {
      if (asked.current.has(id)) continue;
      asked.current.add(id);
      void fetchOffer(id).then((offer) => {
        // A frame that came first is newer than the answer.
        if (offer && asking === generation.current) setOffers((shown) => (shown[id] ? shown : { ...shown, [id]: offer }));
      });
    }
  }, [key, round]);

  useEffect(
    () => () => {
      generation.current += 1;
      asked.current.clear();
    },
    [],
  );

  return offers;
}
