export {
  runRenewal,
  BATCH_SIZE,
  type RenewSummary,
  type RenewOptions,
  type RenewResult,
  type RenewProgress,
} from './run.js';
export { countDue, dueItems, type DueItem } from './due.js';
export { chargeRecord, type ChargeOutcome } from './charge.js';
export { recordOutcome, type RecordedAs } from './record.js';
export { liveMerchantsDueAt } from './run-ahead.js';
