export { createTransaction, CHARGE_LEASE_MS, type CreateTransactionOptions } from './create.js';
export { queryTransaction, findTransaction, showTransaction, listTransactions, type TransactionRef } from './query.js';
export { transactionView, transactionDetail, STATUS, STATUS_NAMES, type TransactionView } from './view.js';
export { PAGE_TTL_MS } from './outcome.js';
