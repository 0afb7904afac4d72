import { MarketList } from '@/features/markets';

/** `/stocks`: the market list (chunk StockList). */
export function Component() {
  return (
    <div className="page">
      <MarketList />
    </div>
  );
}
