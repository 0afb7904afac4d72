/** Products in the back-office: display name, offered or not. */
import { adminApi } from '@/lib/admin-api';

export interface Product {
  symbol: string;
  name: string;
  category: string;
  precision: number;
  enabled: boolean;
  /** `always` (crypto, 24/7) or `forex` (closed from Friday 22:00 to Sunday 22:00 UTC). */
  hours: string;
}

export const fetchProducts = (signal?: AbortSignal) => adminApi.get<Product[]>('/admin/products', { signal });

export const updateProduct = (symbol: string, name: string, enabled: boolean) =>
  adminApi.put(`/admin/products/${encodeURIComponent(symbol)}`, { name, enabled });

export const PRODUCT_NAME_MAX = 100;
