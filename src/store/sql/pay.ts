import type { Acceptance, Accepted, ChargeOutcome, OutcomeRecorded, Store } from '../store.js';

/**
 * A PAY's two writes as units of work of the engine (SQLite: its group-commit writer runs each
 * alone, so the reads here decide for good). PostgreSQL writes each as one statement instead
 * (postgres/pay.ts); both answer the same.
 */
export function acceptInUnit(store: Store, a: Acceptance): Promise<Accepted> {
  return store.transaction(async (tx): Promise<Accepted> => {
    const { key, row } = a;
    if (await tx.getIdempotency(key.merchantId, key.scope, key.requestId)) return 'seen';
    if (row.relationId !== null && (await tx.getTransactionByRelation(row.merchantId, row.relationId)))
      return 'relation';
    await tx.insertTransaction(row);
    await tx.insertIdempotency(key);
    return 'accepted';
  });
}

export function recordOutcomeInUnit(store: Store, o: ChargeOutcome): Promise<OutcomeRecorded> {
  return store.transaction(async (tx): Promise<OutcomeRecorded> => {
    if (!(await tx.insertSandboxCharge(o.entry))) return { entered: false };
    if (!(await tx.updateTransactionIf(o.transactionId, o.from, o.patch))) return { entered: true };
    if (o.event) await tx.enqueueEvent(o.event);
    return { entered: true, row: await tx.getTransaction(o.transactionId) };
  });
}
