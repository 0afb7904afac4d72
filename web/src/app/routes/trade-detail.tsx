import { useParams } from 'react-router';

import { PriceAlertButton } from '@/features/price-alerts';
import { type HeaderAction, TradeDetail } from '@/features/trade';

const alertButton: HeaderAction = (market) => <PriceAlertButton {...market} />;

/** `/trade/{code}` (chunk TradeDetail); the loader has already cleaned the code. */
export function Component() {
  const code = useParams()['*'] ?? '';
  return (
    <div className="page page-trade">
      <TradeDetail key={code} symbol={code} headerAction={alertButton} />
    </div>
  );
}
