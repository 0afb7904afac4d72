import { ResponsibleTrading } from '@/features/responsible';

/** `/account/responsible-trading` (chunk ResponsiblePage): the user's own limits. */
export function Component() {
  return (
    <div className="page page-narrow">
      <ResponsibleTrading />
    </div>
  );
}
