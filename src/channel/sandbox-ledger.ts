import type { SandboxChargeRow, Store, Tx } from '../store/store.js';
import { writeTogether } from '../store/store.js';

/** Most charges written in one unit of work (a renewal batch is 256; two may meet). */
const MAX_BATCH = 512;

interface Waiting {
  charge: SandboxChargeRow;
  resolve: (row: SandboxChargeRow | undefined) => void;
  reject: (e: unknown) => void;
}

/**
 * The sandbox ledger's charge writes. Charges asked for together — a renewal batch's, concurrent
 * PAYs' — are written in one unit of work (writeTogether), and a charge that cannot be written
 * fails alone. What a caller gets is what it would get alone: its row if its key was new,
 * otherwise the row of whoever took the key first.
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
    const settled = await writeTogether(
      this.store,
      batch.map((w) => w.charge),
      writeOne,
    );
    for (const [i, s] of settled.entries()) {
      const w = batch[i] as Waiting;
      if (s.status === 'fulfilled') w.resolve(s.value);
      else w.reject(s.reason);
    }
  }
}

// Whoever inserted first decided; a repeated key reads that first result (one statement when
// the key is new: this runs for every charge, renewals included).
async function writeOne(tx: Tx, charge: SandboxChargeRow): Promise<SandboxChargeRow | undefined> {
  return (await tx.insertSandboxCharge(charge)) ? charge : tx.getSandboxChargeByKey(charge.idempotencyKey);
}
