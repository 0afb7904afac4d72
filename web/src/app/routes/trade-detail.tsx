import { useParams } from 'react-router';

import { TradeDetail } from '@/features/trade';

/** `/trade/{code}` (chunk TradeDetail); the loader has already cleaned the code. */
export function Component() {
  const code = useParams()['*'] ?? '';
  return (
    <div className="page page-trade">
      <TradeDetail key={code} symbol={code} />
    </div>
  );
}
