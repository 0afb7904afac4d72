/** Products in the back-office: display name, offered or not. */
import { adminApi } from '@/lib/admin-api';
import type { Schemas } from '@/types/api';

/**
 * A product as the back-office lists it. `hours`: `always` (crypto, 24/7) or `forex` (closed
 * from Friday 22:00 to Sunday 22:00 UTC); `source`, where its prices come from: `simulated`,
 * `replay: FILE` or `exchange: HOST`.
 */
export type Product = Schemas['ProductAdmin'];

/** A price source read for display: its kind, and the file or host it names. */
export function readSource(source: string): { kind: 'simulated' | 'replay' | 'exchange' | 'other' | 'none'; detail: string } {
  const text = source.trim();
  if (!text) return { kind: 'none', detail: '' };
  if (text === 'simulated') return { kind: 'simulated', detail: '' };
  const named = /^(replay|exchange):\s*(.*)$/.exec(text);
  if (named) return { kind: named[1] as 'replay' | 'exchange', detail: named[2]! };
  return { kind: 'other', detail: text };
}

export const fetchProducts = (signal?: AbortSignal) => adminApi.get<Product[]>('/admin/products', { signal });

export const updateProduct = (symbol: string, name: string, enabled: boolean) =>
  adminApi.put(`/admin/products/${encodeURIComponent(symbol)}`, { name, enabled });

export const PRODUCT_NAME_MAX = 100;

/** A catalogue product not listed yet: an admin may add it. */
export type CatalogueItem = Schemas['CatalogueItem'];

export const fetchCatalogue = (signal?: AbortSignal) => adminApi.get<CatalogueItem[]>('/admin/catalogue', { signal });

/** Lists a catalogue product: shown, priced and tradable from now on. */
export const addProduct = (symbol: string) => adminApi.post('/admin/products', { symbol });
