/**
 * The user's contracts on the trade screen: open ones from the contract list (at start and
 * after every reconnect), then moved by the private stream: accepted, entered, settled.
 * A settled contract stays on screen with its result until dismissed (the newest 10).
 */
import { create } from 'zustand';

import type { AcceptedFrame, EnteredFrame, SettledFrame } from '@/lib/ws-frames';

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
  exitPrice: string | null;
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
    exitPrice: row.exit?.price ?? null,
  };
}

function isOpen(c: LiveContract): boolean {
  return c.status === 'waiting_entry' || c.status === 'open';
}

interface ContractsState {
  byId: Record<number, LiveContract>;
  load(): Promise<void>;
  accepted(frame: AcceptedFrame): void;
  entered(frame: EnteredFrame): void;
  settled(frame: SettledFrame): void;
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

export const useContracts = create<ContractsState>()((set, get) => ({
  byId: {},
  async load() {
    const page = await tradeApi.openContracts();
    const next: Record<number, LiveContract> = {};
    // Settled ones shown now stay; open ones are replaced by the server's list.
    for (const c of Object.values(get().byId)) if (!isOpen(c)) next[c.id] = c;
    for (const row of page.items) if (!next[row.id] || isOpen(next[row.id]!)) next[row.id] = fromRow(row);
    set({ byId: next });
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
      exitPrice: null,
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
      exitPrice: null,
    };
    const settled: LiveContract = {
      ...base,
      status: frame.outcome.startsWith('void') ? 'void' : 'settled',
      outcome: frame.outcome,
      result: frame.result,
      resultAmount: frame.amount,
      entryPrice: frame.entryPrice ?? base.entryPrice,
      exitPrice: frame.exitPrice,
    };
    set({ byId: trim({ ...get().byId, [frame.contractId]: settled }) });
  },
  dismiss(id) {
    const next = { ...get().byId };
    delete next[id];
    set({ byId: next });
  },
  clear() {
    set({ byId: {} });
  },
}));
