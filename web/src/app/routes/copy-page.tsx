import { CopyTrading } from '@/features/copy-trading';

/** `/copy` (chunk CopyPage): the top traders, and the user's own copy trading when signed in. */
export function Component() {
  return (
    <div className="page">
      <CopyTrading />
    </div>
  );
}
