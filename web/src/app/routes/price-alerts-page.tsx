import { PriceAlertsPanel } from '@/features/price-alerts';

/** `/account/price-alerts` (chunk PriceAlertsPage): set, remove and review price alerts. */
export function Component() {
  return (
    <div className="page page-narrow">
      <PriceAlertsPanel />
    </div>
  );
}
