import { PgConnectionLostError } from './errors.js';

interface Waiting<I, R> {
  item: I;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

/** At most this many writes in one transaction, so one batch cannot hold the merchant for long. */
const MAX_BATCH = 64;

/**
 * Group commit for the writes that take a merchant's next invoice number: a sandbox PAY whole,
 * or a charge's paid outcome (pay.ts). Such a write holds the merchant's row until it commits, so
 * that no number is skipped: however many PAYs run at once, one merchant's commit one after
 * another, one WAL flush each (BENCHMARKS.md: 20.5 ms per outcome on one merchant, 1.06 ms spread
 * over eight). So, in this process, while one write of a merchant is in flight the next ones wait,
 * and are then written together in ONE transaction (`together`): the row is locked once and one
 * commit answers them all. A write with nothing waiting with it, or one that takes no number (a
 * decline, 3-D Secure: `merchantOf` answers undefined), is the single autocommit statement it was
 * (`alone`).
 *
 * A batch that fails is rolled back and its writes are made one by one, so a failing write
 * rejects its own caller only; each write is conditional (its idempotency key, its ledger key, its
 * `from` status), so making it again after the rollback is safe. A lost connection is the
 * exception: whether the batch committed is unknown there, so every caller gets the error, as one
 * statement's caller would.
 */
export function merchantBatches<I, R>(
  merchantOf: (item: I) => string | undefined,
  alone: (item: I) => Promise<R>,
  together: (items: I[]) => Promise<R[]>,
): (item: I) => Promise<R> {
  /** Per merchant with a write in flight: the writes queued behind it. */
  const queues = new Map<string, Waiting<I, R>[]>();

  const writeAlone = (w: Waiting<I, R>): Promise<void> => alone(w.item).then(w.resolve, w.reject);

  const write = async (batch: Waiting<I, R>[]): Promise<void> => {
    if (batch.length === 1) return writeAlone(batch[0] as Waiting<I, R>);
    let written: R[];
    try {
      written = await together(batch.map((w) => w.item));
    } catch (e) {
      if (e instanceof PgConnectionLostError) {
        for (const w of batch) w.reject(e);
        return;
      }
      for (const w of batch) await writeAlone(w);
      return;
    }
    for (const [i, w] of batch.entries()) w.resolve(written[i] as R);
  };

  const drain = async (merchantId: string, first: Waiting<I, R>): Promise<void> => {
    let batch = [first];
    for (;;) {
      await write(batch);
      const queue = queues.get(merchantId) as Waiting<I, R>[];
      if (queue.length === 0) {
        queues.delete(merchantId);
        return;
      }
      batch = queue.splice(0, MAX_BATCH);
    }
  };

  return (item) => {
    const merchantId = merchantOf(item);
    if (merchantId === undefined) return alone(item);
    return new Promise<R>((resolve, reject) => {
      const queue = queues.get(merchantId);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      queues.set(merchantId, []);
      void drain(merchantId, { item, resolve, reject });
    });
  };
}
