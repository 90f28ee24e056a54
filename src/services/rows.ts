/**
 * The store's row and figure types the shells (cli/, http/) render, handed out by the service
 * layer: the shells import no store module (test/unit/store-boundary.test.ts). Types only, so
 * importing this loads nothing.
 */
export type { CopyProgress, CopySummary, MerchantRow, OperationalCounts, SubscriptionRow } from '../store/store.js';
