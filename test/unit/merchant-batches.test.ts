import { describe, expect, it } from 'vitest';
import { PgConnectionLostError } from '../../src/store/postgres/errors.js';
import { merchantBatches } from '../../src/store/postgres/merchant-batches.js';

/**
 * One merchant's numbered writes on PostgreSQL (src/store/postgres/merchant-batches.ts), with the
 * writes recorded instead of sent: which go alone, which together, and what each caller gets back.
 */
interface Write {
  transactionId: string;
  merchantId: string | undefined;
}
interface Written {
  id: string;
}
const outcome = (id: string, merchantId?: string): Write => ({ transactionId: id, merchantId });

function writes(fail: { alone?: string; together?: 'error' | 'lost' } = {}) {
  const log: string[][] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const recorded = (o: Write): Written => ({ id: o.transactionId });
  const record = merchantBatches<Write, Written>(
    (o) => o.merchantId,
    async (o) => {
      log.push([o.transactionId]);
      // The first write stays in flight until released, so that others queue behind it.
      if (log.length === 1) await gate;
      if (fail.alone === o.transactionId) throw new Error(`refused ${o.transactionId}`);
      return recorded(o);
    },
    async (os) => {
      log.push(os.map((o) => o.transactionId));
      if (fail.together === 'lost') throw new PgConnectionLostError('unknown', new Error('reset'));
      if (fail.together === 'error') throw new Error('batch refused');
      return os.map(recorded);
    },
  );
  return { log, release, record };
}

const idOf = (r: PromiseSettledResult<Written>) => (r.status === 'fulfilled' ? r.value.id : 'rejected');

describe('merchant batches', () => {
  it('write one outcome alone, and the ones of its merchant queued behind it together, each answered its own', async () => {
    const { log, release, record } = writes();
    const all = ['t1', 't2', 't3', 't4'].map((id) => record(outcome(id, 'mer_a')));
    release();
    expect((await Promise.allSettled(all)).map(idOf)).toEqual(['t1', 't2', 't3', 't4']);
    expect(log).toEqual([['t1'], ['t2', 't3', 't4']]);
  });

  it('do not hold an outcome that takes no number, nor one of another merchant', async () => {
    const { log, release, record } = writes();
    const first = record(outcome('t1', 'mer_a'));
    await Promise.all([record(outcome('declined')), record(outcome('t2', 'mer_b'))]);
    expect(log).toEqual([['t1'], ['declined'], ['t2']]);
    release();
    await first;
  });

  it('redo a refused batch one outcome at a time: only the outcome that fails alone is refused', async () => {
    const { log, release, record } = writes({ together: 'error', alone: 't3' });
    const all = ['t1', 't2', 't3', 't4'].map((id) => record(outcome(id, 'mer_a')));
    release();
    expect((await Promise.allSettled(all)).map(idOf)).toEqual(['t1', 't2', 'rejected', 't4']);
    expect(log).toEqual([['t1'], ['t2', 't3', 't4'], ['t2'], ['t3'], ['t4']]);
  });

  it('never redo a batch whose connection was lost: every caller of it gets the error', async () => {
    const { log, release, record } = writes({ together: 'lost' });
    const all = ['t1', 't2', 't3'].map((id) => record(outcome(id, 'mer_a')));
    release();
    const settled = await Promise.allSettled(all);
    expect(settled.map(idOf)).toEqual(['t1', 'rejected', 'rejected']);
    expect(settled.slice(1).every((r) => r.status === 'rejected' && r.reason instanceof PgConnectionLostError)).toBe(
      true,
    );
    expect(log).toEqual([['t1'], ['t2', 't3']]);
  });

  it('start afresh once a merchant has nothing queued', async () => {
    const { log, release, record } = writes();
    release();
    await record(outcome('t1', 'mer_a'));
    await record(outcome('t2', 'mer_a'));
    expect(log).toEqual([['t1'], ['t2']]);
  });
});
