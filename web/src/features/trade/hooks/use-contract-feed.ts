/**
 * Keeps the contracts store in step with the server while the trade screen is open: the open
 * contracts are read at start, at sign-in and after every reconnect (never an order re-sent),
 * and the private stream moves them and brings their early-close offers.
 */
import { useEffect } from 'react';

import { useWsEvent } from '@/lib/ws';
import type { AcceptedFrame, EnteredFrame, OfferFrame, SettledFrame } from '@/lib/ws-frames';
import { useSession } from '@/stores/session';

import { useContracts } from '../stores/contracts';

export function refreshContracts(): void {
  if (!useSession.getState().token) return;
  useContracts
    .getState()
    .load()
    .catch(() => undefined);
}

export function useContractFeed(): void {
  const token = useSession((s) => s.token);
  useEffect(() => {
    if (token) refreshContracts();
    else useContracts.getState().clear();
  }, [token]);
  useWsEvent('resync', refreshContracts);
  useWsEvent<AcceptedFrame>('order.accepted', (f) => useContracts.getState().accepted(f.data));
  useWsEvent<EnteredFrame>('order.entered', (f) => useContracts.getState().entered(f.data));
  useWsEvent<SettledFrame>('order.settled', (f) => useContracts.getState().settled(f.data));
  useWsEvent<OfferFrame>('order.offer', (f) => useContracts.getState().offer(f.data));
}
