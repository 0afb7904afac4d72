/** The contract records feature. */
export { ContractRecords } from './components/contract-records';
