import type { SandboxChargeRow, Store, Tx } from '../store/store.js';

/** Most charges written in one unit of work (a renewal batch is 256; two may meet). */
const MAX_BATCH = 512;

interface Waiting {
  charge: SandboxChargeRow;
  resolve: (row: SandboxChargeRow | undefined) => void;
  reject: (e: unknown) => void;
}

/**
 * The sandbox ledger's charge writes. Charges asked for together — a renewal batch's, concurrent
 * PAYs' — are written in one unit of work: one commit, and on PostgreSQL every INSERT pipelined
 * on one connection, instead of a unit of work each. What a caller gets is what it would get
 * alone: its row if its key was new, otherwise the row of whoever took the key first.
 *
 * All or nothing, so when the shared unit of work fails each charge is written again in its own,
 * and a failure stays that charge's own.
 */
export class SandboxLedger {
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(private readonly store: Store) {}

  /** The ledger row of `charge.idempotencyKey`: `charge` itself when the key was new. */
  record(charge: SandboxChargeRow): Promise<SandboxChargeRow | undefined> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ charge, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // After the I/O callbacks of this turn: every charge started by them joins the batch.
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    });
  }

  private flush(): void {
    while (this.waiting.length > 0) void this.write(this.waiting.splice(0, MAX_BATCH));
  }

  private async write(batch: Waiting[]): Promise<void> {
    if (batch.length > 1) {
      const rows = await this.store
        .transaction((tx) =>
          writeAll(
            tx,
            batch.map((w) => w.charge),
          ),
        )
        .catch(() => undefined);
      if (rows) {
        for (const [i, w] of batch.entries()) w.resolve(rows[i]);
        return;
      }
    }
    await Promise.all(
      batch.map((w) => this.store.transaction((tx) => writeOne(tx, w.charge)).then(w.resolve, w.reject)),
    );
  }
}

// Whoever inserted first decided; a repeated key reads that first result (one statement when
// the key is new: this runs for every charge, renewals included).
async function writeOne(tx: Tx, charge: SandboxChargeRow): Promise<SandboxChargeRow | undefined> {
  return (await tx.insertSandboxCharge(charge)) ? charge : tx.getSandboxChargeByKey(charge.idempotencyKey);
}

/** Every write finished before the unit of work ends, even when one fails early (see recordAll). */
async function writeAll(tx: Tx, charges: SandboxChargeRow[]): Promise<(SandboxChargeRow | undefined)[]> {
  const settled = await Promise.allSettled(charges.map((c) => writeOne(tx, c)));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<SandboxChargeRow | undefined>).value);
}
