import { ContractRecords } from '@/features/contracts';

/** `/contract-record` (chunk ContractRecord). */
export function Component() {
  return (
    <div className="page">
      <ContractRecords />
    </div>
  );
}
