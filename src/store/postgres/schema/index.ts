// The PostgreSQL mirror of src/store/schema: same tables, columns and indexes.
export * from './merchants.js';
export * from './plans.js';
export * from './cards.js';
export * from './subscriptions.js';
export * from './billing-records.js';
export * from './transactions.js';
export * from './outbox.js';
export * from './sandbox.js';
export * from './rate-limits.js';
