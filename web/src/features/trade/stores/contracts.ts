/**
 * The user's contracts on the trade screen: open ones from the contract list (at start and
 * after every reconnect), then moved by the private stream: accepted, entered, settled.
 * A settled contract stays on screen with its result until dismissed (the newest 10).
 *
 * Beside them, each entered open contract's early-close offer (decisions §11): the latest
 * `order.offer` frame per contract, or, for one that has had no frame since the list was read
 * (a reconnect), the answer of one `GET .../offer`. An offer leaves when its contract settles.
 */
import { create } from 'zustand';

import { type SaleOffer, fetchOffer, saleOffer } from '@/lib/sale';
import type { AcceptedFrame, EnteredFrame, OfferFrame, SettledFrame } from '@/lib/ws-frames';

import { type ContractRow, tradeApi } from '../api';

export const SETTLED_SHOWN_MAX = 10;

/** A contract on screen, from the contract list or the private stream's frames. */
export interface LiveContract {
  id: number;
  symbol: string;
  /** `real` or `demo`. */
  account: ContractRow['account'];
  /** `up` or `down`. */
  direction: ContractRow['direction'];
  amount: string;
  fee: string;
  payoutRate: string;
  /** Seconds. */
  duration: number;
  acceptedAt: number;
  entryPrice: string | null;
  entryTime: number | null;
  entryIndex: number | null;
  expiresAt: number | null;
  /** waiting_entry, open, settled or void. */
  status: ContractRow['status'];
  outcome: string | null;
  /** profit, loss or even, once settled. */
  result: 'profit' | 'loss' | 'even' | null;
  /** Size of the profit or loss (never negative). */
  resultAmount: string | null;
  /** What was paid into the wallet once settled (a sale's amount). */
  credited: string | null;
  exitPrice: string | null;
  /** The leader's UID when the contract is a copy (copy trading), else null. */
  copiedFrom: number | null;
}

function fromRow(row: ContractRow): LiveContract {
  return {
    id: row.id,
    symbol: row.symbol,
    account: row.account,
    direction: row.direction,
    amount: row.stake,
    fee: row.fee,
    payoutRate: row.payoutRate,
    duration: row.duration,
    acceptedAt: row.acceptedAt,
    entryPrice: row.entry?.price ?? null,
    entryTime: row.entry?.time ?? null,
    entryIndex: row.entry?.sequence ?? null,
    expiresAt: row.expiryAt ?? null,
    status: row.status,
    outcome: row.outcome ?? null,
    result: null,
    resultAmount: null,
    credited: row.credited ?? null,
    exitPrice: row.exit?.price ?? null,
    copiedFrom: row.copiedFrom ?? null,
  };
}

function isOpen(c: LiveContract): boolean {
  return c.status === 'waiting_entry' || c.status === 'open';
}

interface ContractsState {
  byId: Record<number, LiveContract>;
  /** Early-close offers of open contracts, by contract. */
  offers: Record<number, SaleOffer>;
  load(): Promise<void>;
  accepted(frame: AcceptedFrame): void;
  entered(frame: EnteredFrame): void;
  settled(frame: SettledFrame): void;
  offer(frame: OfferFrame): void;
  dismiss(id: number): void;
  clear(): void;
}

/** Keeps every open contract and the newest settled ones. */
function trim(byId: Record<number, LiveContract>): Record<number, LiveContract> {
  const settled = Object.values(byId)
    .filter((c) => !isOpen(c))
    .sort((a, b) => b.id - a.id);
  const next = { ...byId };
  for (const old of settled.slice(SETTLED_SHOWN_MAX)) delete next[old.id];
  return next;
}

/** The offers of `offers` whose contract is open in `byId`. */
function openOffers(offers: Record<number, SaleOffer>, byId: Record<number, LiveContract>): Record<number, SaleOffer> {
  const kept: Record<number, SaleOffer> = {};
  for (const [id, offer] of Object.entries(offers)) {
    const contract = byId[Number(id)];
    if (contract && isOpen(contract)) kept[Number(id)] = offer;
  }
  return kept;
}

export const useContracts = create<ContractsState>()((set, get) => ({
  byId: {},
  offers: {},
  async load() {
    const page = await tradeApi.openContracts();
    const next: Record<number, LiveContract> = {};
    // Settled ones shown now stay; open ones are replaced by the server's list.
    for (const c of Object.values(get().byId)) if (!isOpen(c)) next[c.id] = c;
    for (const row of page.items) if (!next[row.id] || isOpen(next[row.id]!)) next[row.id] = fromRow(row);
    // Offers from before the list was read may be old (frames missed while away): forgotten,
    // then asked once for each entered contract unless a frame comes first.
    set({ byId: next, offers: {} });
    for (const c of Object.values(next)) {
      if (c.status !== 'open') continue;
      void fetchOffer(c.id).then((offer) => {
        const { byId, offers } = get();
        const contract = byId[c.id];
        if (!offer || offers[c.id] || !contract || !isOpen(contract)) return;
        set({ offers: { ...offers, [c.id]: offer } });
      });
    }
  },
  accepted(frame) {
    if (get().byId[frame.contractId]) return;
    const contract: LiveContract = {
      id: frame.contractId,
      symbol: frame.symbol,
      account: frame.account,
      direction: frame.direction,
      amount: frame.amount,
      fee: frame.fee,
      payoutRate: frame.payoutRate,
      duration: frame.duration,
      acceptedAt: frame.acceptedAt,
      entryPrice: null,
      entryTime: null,
      entryIndex: null,
      expiresAt: null,
      status: 'waiting_entry',
      outcome: null,
      result: null,
      resultAmount: null,
      credited: null,
      exitPrice: null,
      copiedFrom: frame.copiedFrom ?? null,
    };
    set({ byId: { ...get().byId, [contract.id]: contract } });
  },
  entered(frame) {
    const current = get().byId[frame.contractId];
    if (!current || !isOpen(current)) return;
    set({
      byId: {
        ...get().byId,
        [frame.contractId]: {
          ...current,
          status: 'open',
          entryPrice: frame.entryPrice,
          entryTime: frame.entryTime,
          entryIndex: frame.entryIndex,
          expiresAt: frame.expiresAt,
        },
      },
    });
  },
  settled(frame) {
    const current = get().byId[frame.contractId];
    const base: LiveContract = current ?? {
      id: frame.contractId,
      symbol: frame.symbol,
      account: frame.account,
      direction: frame.direction,
      amount: frame.stake,
      fee: '0',
      payoutRate: '0',
      duration: 0,
      acceptedAt: frame.settledAt,
      entryPrice: frame.entryPrice,
      entryTime: null,
      entryIndex: null,
      expiresAt: null,
      status: 'open',
      outcome: null,
      result: null,
      resultAmount: null,
      credited: null,
      exitPrice: null,
      copiedFrom: null,
    };
    const settled: LiveContract = {
      ...base,
      status: frame.outcome.startsWith('void') ? 'void' : 'settled',
      outcome: frame.outcome,
      result: frame.result,
      resultAmount: frame.amount,
      credited: frame.credited,
      entryPrice: frame.entryPrice ?? base.entryPrice,
      exitPrice: frame.exitPrice,
    };
    const byId = trim({ ...get().byId, [frame.contractId]: settled });
    set({ byId, offers: openOffers(get().offers, byId) });
  },
  offer(frame) {
    const current = get().byId[frame.contractId];
    // A frame for a contract not (or no longer) open here is late: it changes nothing.
    if (!current || !isOpen(current)) return;
    set({ offers: { ...get().offers, [frame.contractId]: saleOffer(frame.offer, frame.reason) } });
  },
  dismiss(id) {
    const next = { ...get().byId };
    delete next[id];
    set({ byId: next, offers: openOffers(get().offers, next) });
  },
  clear() {
    set({ byId: {}, offers: {} });
  },
}));
