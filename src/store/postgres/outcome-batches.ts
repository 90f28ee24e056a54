import type { ChargeOutcome, OutcomeRecorded } from '../store.js';
import { PgConnectionLostError } from './errors.js';

interface Waiting {
  o: ChargeOutcome;
  resolve: (r: OutcomeRecorded) => void;
  reject: (e: unknown) => void;
}

/** At most this many outcomes in one transaction, so one batch cannot hold the merchant for long. */
const MAX_BATCH = 64;

/**
 * Group commit for one merchant's paid PAYs. A paid outcome takes the merchant's next invoice
 * number and holds the merchant's row until it commits, so that no number is skipped: however many
 * PAYs run at once, one merchant's outcomes commit one after another, one WAL flush each
 * (BENCHMARKS.md: 20.5 ms per outcome on one merchant, 1.06 ms spread over eight). So, in this
 * process, while one outcome of a merchant is being written the next ones wait, and are then
 * written together in ONE transaction (`together`): the row is locked once and one commit
 * answers them all. An outcome with nothing waiting with it, or one that takes no number (a
 * decline, 3-D Secure), is the single autocommit statement it was (`alone`).
 *
 * A batch that fails is rolled back and its outcomes are written one by one, so a failing outcome
 * rejects its own caller only; each outcome is conditional (its ledger key, its `from` status), so
 * writing it again after the rollback is safe. A lost connection is the exception: whether the
 * batch committed is unknown there, so every caller gets the error, as one statement's caller
 * would.
 */
export function outcomeBatches(
  alone: (o: ChargeOutcome) => Promise<OutcomeRecorded>,
  together: (os: ChargeOutcome[]) => Promise<OutcomeRecorded[]>,
): (o: ChargeOutcome) => Promise<OutcomeRecorded> {
  /** Per merchant with a write in flight: the outcomes queued behind it. */
  const queues = new Map<string, Waiting[]>();

  const writeAlone = (w: Waiting): Promise<void> => alone(w.o).then(w.resolve, w.reject);

  const write = async (batch: Waiting[]): Promise<void> => {
    if (batch.length === 1) return writeAlone(batch[0] as Waiting);
    let recorded: OutcomeRecorded[];
    try {
      recorded = await together(batch.map((w) => w.o));
    } catch (e) {
      if (e instanceof PgConnectionLostError) {
        for (const w of batch) w.reject(e);
        return;
      }
      for (const w of batch) await writeAlone(w);
      return;
    }
    for (const [i, w] of batch.entries()) w.resolve(recorded[i] as OutcomeRecorded);
  };

  const drain = async (merchantId: string, first: Waiting): Promise<void> => {
    let batch = [first];
    for (;;) {
      await write(batch);
      const queue = queues.get(merchantId) as Waiting[];
      if (queue.length === 0) {
        queues.delete(merchantId);
        return;
      }
      batch = queue.splice(0, MAX_BATCH);
    }
  };

  return (o) => {
    const merchantId = o.invoice?.row.merchantId;
    if (merchantId === undefined) return alone(o);
    return new Promise<OutcomeRecorded>((resolve, reject) => {
      const queue = queues.get(merchantId);
      if (queue) {
        queue.push({ o, resolve, reject });
        return;
      }
      queues.set(merchantId, []);
      void drain(merchantId, { o, resolve, reject });
    });
  };
}
