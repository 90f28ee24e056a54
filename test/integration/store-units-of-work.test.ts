import { afterEach, describe, expect, it } from 'vitest';
import { type MerchantRow, rowOf, type Tx } from '../../src/store/store.js';
import { NEW_MERCHANT_DOCUMENTS } from '../../src/services/merchant-identity.js';
import { onPostgres, testApp, type TestApp } from '../helpers/ctx.js';
import { merchantWithPlan, subscribe } from '../helpers/subscriptions.js';

/**
 * The store's unit-of-work contract (src/store/store.ts), seen from above the boundary: what a
 * service may rely on whichever engine is underneath.
 */
let app: TestApp;
afterEach(async () => app?.close());

let n = 0;
function merchantRow(now: number): MerchantRow {
  n++;
  return rowOf('merchants', {
    id: `mer_uow_${n}`,
    name: `Shop ${n}`,
    apiKey: `ak_uow_${n}`,
    secretEnc: 'sealed',
    signatureVersion: 2,
    status: 'ACTIVE',
    channel: 'sandbox',
    portalActions: 'cancel,update-card',
    ...NEW_MERCHANT_DOCUMENTS,
    createdAt: now,
    updatedAt: now,
  });
}

describe('a unit of work', () => {
  it('that throws after writing leaves nothing and rejects with its own error', async () => {
    app = await testApp();
    const row = merchantRow(app.clock.now());
    const failing = app.ctx.store.transaction(async (tx) => {
      await tx.insertMerchant(row);
      await tx.updateMerchant(row.id, { name: 'renamed' });
      throw new Error('refused half-way');
    });
    await expect(failing).rejects.toThrow('refused half-way');
    expect(await app.ctx.store.getMerchant(row.id)).toBeUndefined();
  });

  it('that throws leaves the other units of work of its batch committed, each once', async () => {
    app = await testApp();
    const now = app.clock.now();
    const [a, b, c] = [merchantRow(now), merchantRow(now), merchantRow(now)];
    const runs = { a: 0, b: 0, c: 0 };
    const unit = (name: 'a' | 'b' | 'c', row: MerchantRow, fail: boolean) =>
      app.ctx.store.transaction(async (tx) => {
        runs[name]++;
        await tx.insertMerchant(row);
        if (fail) throw new Error(`${name} failed after writing`);
        return name;
      });
    // Queued in one turn: one batch, in which b fails after its write.
    const outcomes = await Promise.allSettled([unit('a', a, false), unit('b', b, true), unit('c', c, false)]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await app.ctx.store.getMerchant(a.id)).toMatchObject({ id: a.id });
    expect(await app.ctx.store.getMerchant(b.id)).toBeUndefined();
    expect(await app.ctx.store.getMerchant(c.id)).toMatchObject({ id: c.id });
    expect((await app.ctx.store.listMerchants()).filter((m) => m.id.startsWith('mer_uow_'))).toHaveLength(2);
    // fn may run more than once (here: the batch was redone call by call) — and still commits once.
    expect(runs.a).toBeGreaterThanOrEqual(1);
    expect(runs.b).toBeGreaterThanOrEqual(1);
  });

  it('may run its fn again: the result of the run that committed is what the caller gets', async () => {
    app = await testApp();
    const now = app.clock.now();
    const first = merchantRow(now);
    let attempt = 0;
    const redone = app.ctx.store.transaction(async (tx) => {
      attempt++;
      await tx.insertMerchant({ ...first, name: `attempt ${attempt}` });
      return attempt;
    });
    // A unit of work in the same batch that fails after writing makes the engine redo the batch.
    const spoiler = app.ctx.store.transaction(async (tx) => {
      await tx.insertMerchant(merchantRow(now));
      throw new Error('spoil the batch');
    });
    await expect(spoiler).rejects.toThrow('spoil the batch');
    const committedAttempt = await redone;
    expect(await app.ctx.store.getMerchant(first.id)).toMatchObject({ name: `attempt ${committedAttempt}` });
  });

  it('that refuses before writing rejects alone, and its fn runs once', async () => {
    app = await testApp();
    const now = app.clock.now();
    const row = merchantRow(now);
    let runs = 0;
    const refused = app.ctx.store.transaction(async (tx) => {
      runs++;
      if (!(await tx.getMerchant('mer_missing'))) throw new Error('no such merchant');
    });
    const ok = app.ctx.store.transaction((tx) => tx.insertMerchant(row));
    await expect(refused).rejects.toThrow('no such merchant');
    await ok;
    expect(runs).toBe(1);
    expect(await app.ctx.store.getMerchant(row.id)).toBeDefined();
  });

  it('sees the writes of a unit of work committed before it', async () => {
    app = await testApp();
    const row = merchantRow(app.clock.now());
    await app.ctx.store.transaction((tx) => tx.insertMerchant(row));
    expect(await app.ctx.store.transaction((tx) => tx.getMerchant(row.id))).toMatchObject({ id: row.id });
  });

  // SQLite's writer runs units of work one after another in call order; on PostgreSQL two units
  // started together run at once on two connections, and neither waits for the other's commit.
  it.skipIf(onPostgres)('sees the writes of the units of work called before it, even in the same batch', async () => {
    app = await testApp();
    const row = merchantRow(app.clock.now());
    const insert = app.ctx.store.transaction((tx) => tx.insertMerchant(row));
    const read = app.ctx.store.transaction((tx) => tx.getMerchant(row.id));
    await insert;
    expect(await read).toMatchObject({ id: row.id });
  });
});

describe('a read outside a unit of work', () => {
  // Group-commit batches are the SQLite engine's: on PostgreSQL each unit of work commits on its
  // own, so a later unit of the same "batch" is visible as soon as it committed.
  it.skipIf(onPostgres)('never sees a batch that has not committed, and sees it once it has', async () => {
    app = await testApp();
    const store = app.ctx.store;
    const row = merchantRow(app.clock.now());
    const seen: Record<string, unknown> = {};
    // Code of other requests runs (in microtasks) while a batch is between BEGIN and COMMIT,
    // because the batch's units of work are awaited one after another. Reads made there through
    // the Store must answer from the last committed state.
    const insert = store.transaction(async (tx) => {
      await tx.insertMerchant(row);
      seen.outsideDuringOwnUnit = await store.getMerchant(row.id);
    });
    const later = store.transaction(async (tx: Tx) => {
      seen.insideLaterUnit = await tx.getMerchant(row.id);
      seen.outsideDuringBatch = await store.getMerchant(row.id);
      seen.listDuringBatch = (await store.listMerchants()).some((m) => m.id === row.id);
    });
    await Promise.all([insert, later]);
    expect(seen.outsideDuringOwnUnit).toBeUndefined();
    expect(seen.outsideDuringBatch).toBeUndefined();
    expect(seen.listDuringBatch).toBe(false);
    expect(seen.insideLaterUnit).toMatchObject({ id: row.id });
    expect(await store.getMerchant(row.id)).toMatchObject({ id: row.id });
  });

  it('sees a unit of work that rolled back as if it never happened', async () => {
    app = await testApp();
    const store = app.ctx.store;
    const row = merchantRow(app.clock.now());
    let seenInside: unknown = 'not read';
    await expect(
      store.transaction(async (tx) => {
        await tx.insertMerchant(row);
        seenInside = await store.getMerchant(row.id);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(seenInside).toBeUndefined();
    expect(await store.getMerchant(row.id)).toBeUndefined();
  });
});

describe('a card Stripe keeps', () => {
  it('reads back with its channel and Stripe ids, inside and outside a unit of work (a card update and a plan change now rely on them)', async () => {
    app = await testApp();
    const store = app.ctx.store;
    const now = app.clock.now();
    const m = merchantRow(now);
    const card = rowOf('cards', {
      id: `crd_uow_${n}`,
      merchantId: m.id,
      panEnc: null,
      channel: 'stripe' as const,
      bin: '424242',
      last4: '4242',
      brand: 'Visa',
      expMonth: 12,
      expYear: 2040,
      createdAt: now,
    });
    await store.transaction(async (tx) => {
      await tx.insertMerchant(m);
      await tx.insertCard(card);
      await tx.setStripeCard(card.id, {
        customerId: 'cus_1',
        paymentMethodId: 'pm_1',
        brand: 'visa',
        last4: '4242',
        expMonth: 12,
        expYear: 2040,
      });
    });
    const expected = {
      channel: 'stripe',
      panEnc: null,
      stripeCustomerId: 'cus_1',
      stripePaymentMethodId: 'pm_1',
      brand: 'visa',
    };
    expect(await store.getCard(card.id)).toMatchObject(expected);
    expect(await store.transaction((tx) => tx.getCard(card.id))).toMatchObject(expected);
  });
});

describe("a renewal charge's outcome on its subscription and transaction", () => {
  async function subscribed() {
    const { merchantId, planId } = await merchantWithPlan(app.ctx);
    const s = await subscribe(app.ctx, merchantId, planId);
    const sub = await app.ctx.store.getSubscriptionById(s.subscriptionId);
    if (!sub?.paidThrough) throw new Error('the first charge should have paid a period');
    return { sub: { ...sub, paidThrough: sub.paidThrough }, txn: s.transactionOrderId };
  }

  it('counts each charge and never moves paid_through back, alone or side by side in one unit of work', async () => {
    app = await testApp();
    const [a, b] = [(await subscribed()).sub, (await subscribed()).sub];
    const now = app.clock.now();
    const later = (s: typeof a) => s.paidThrough + 1000;
    const earlier = (s: typeof a) => s.paidThrough - 1000;
    await app.ctx.store.transaction(async (tx) => {
      await tx.addChargeToSubscription(a.id, { approved: true, amount: 999, paidThrough: later(a), now });
      await tx.addChargeToSubscription(a.id, { approved: true, amount: 1, paidThrough: earlier(a), now });
      await tx.addChargeToSubscription(a.id, { approved: false, amount: 5000, paidThrough: later(a) + 5000, now });
      await tx.addChargeToSubscription(a.id, { approved: true, amount: 2, paidThrough: null, now });
    });
    // Asked in the same turn, one per subscription: PostgreSQL writes them as one statement (postgres/batched.ts).
    await app.ctx.store.transaction((tx) =>
      Promise.all([
        tx.addChargeToSubscription(a.id, { approved: true, amount: 10, paidThrough: earlier(a), now }),
        tx.addChargeToSubscription(b.id, { approved: true, amount: 20, paidThrough: later(b), now }),
      ]),
    );
    await app.ctx.store.transaction((tx) =>
      Promise.all([
        tx.addChargeToSubscription(a.id, { approved: false, amount: 30, paidThrough: later(a) + 9000, now }),
        tx.addChargeToSubscription(b.id, { approved: true, amount: 40, paidThrough: earlier(b), now }),
      ]),
    );
    expect(await app.ctx.store.getSubscriptionById(a.id)).toMatchObject({
      paidThrough: later(a),
      billingCount: a.billingCount + 4,
      failedCount: a.failedCount + 2,
      totalPaid: a.totalPaid + 999 + 1 + 2 + 10,
    });
    expect(await app.ctx.store.getSubscriptionById(b.id)).toMatchObject({
      paidThrough: later(b),
      billingCount: b.billingCount + 2,
      failedCount: b.failedCount,
      totalPaid: b.totalPaid + 20 + 40,
    });
  });

  it('refuses an amount or a paid-through time that is not a finite number, alone or side by side, and writes nothing', async () => {
    app = await testApp();
    const [a, b] = [(await subscribed()).sub, (await subscribed()).sub];
    const now = app.clock.now();
    const charge = (id: string, amount: number, paidThrough: number | null = null) =>
      ({ id, c: { approved: true, amount, paidThrough, now } }) as const;
    for (const asked of [
      [charge(a.id, Number.NaN)],
      [charge(a.id, 5), charge(b.id, Number.POSITIVE_INFINITY)],
      // A nullable column: JSON would write NaN as null, "no value", and the charge would count.
      [charge(a.id, 5), charge(b.id, 5, Number.NaN)],
    ]) {
      await expect(
        app.ctx.store.transaction((tx) => Promise.all(asked.map((x) => tx.addChargeToSubscription(x.id, x.c)))),
      ).rejects.toThrow();
    }
    for (const s of [a, b])
      expect(await app.ctx.store.getSubscriptionById(s.id)).toMatchObject({
        totalPaid: s.totalPaid,
        billingCount: s.billingCount,
      });
  });

  it('finishes the transaction approved with its amount, or failed with its reason, the processor ref kept when none is given', async () => {
    app = await testApp();
    const { txn } = await subscribed();
    const before = await app.ctx.store.getTransaction(txn);
    const now = app.clock.now() + 5;
    await app.ctx.store.transaction((tx) =>
      tx.finishRenewalTransaction(txn, { approved: false, failReason: 'card_declined', channelRef: null, now }),
    );
    expect(await app.ctx.store.getTransaction(txn)).toMatchObject({
      status: 300000,
      failReason: 'card_declined',
      channelRef: before?.channelRef,
      txnTime: now,
    });
    await app.ctx.store.transaction((tx) =>
      tx.finishRenewalTransaction(txn, { approved: true, failReason: null, channelRef: 'ch_1', now }),
    );
    expect(await app.ctx.store.getTransaction(txn)).toMatchObject({
      status: 200000,
      failReason: null,
      channelRef: 'ch_1',
      txnAmount: before?.amount,
      txnCurrency: before?.currency,
    });
  });
});

describe('claiming due callback events', () => {
  async function twoMerchantsWithEvents(busyEvents: number) {
    app = await testApp();
    const now = app.clock.now();
    const [busy, other] = [merchantRow(now), merchantRow(now)];
    const event = (merchantId: string, n: number, at: number) => ({
      merchantId,
      kind: 'PAYMENT' as const,
      eventType: 'PAYMENT',
      notifyUrl: `https://${merchantId}.example/callback`,
      body: { n: String(n) },
      now: at,
    });
    const ids = await app.ctx.store.transaction(async (tx) => {
      await tx.insertMerchant(busy);
      await tx.insertMerchant(other);
      const busyIds: (string | undefined)[] = [];
      for (let i = 0; i < busyEvents; i++) busyIds.push(await tx.enqueueEvent(event(busy.id, i, now - 1000 + i)));
      return { busy: busyIds, other: await tx.enqueueEvent(event(other.id, 0, now)) };
    });
    return { now, busy: busy.id, other: other.id, ids };
  }

  it('passes over a merchant already at its share, however many of its events come due first', async () => {
    const { now, busy, other, ids } = await twoMerchantsWithEvents(20);
    const claimed = await app.ctx.store.transaction((tx) =>
      tx.claimDueEvents({
        now,
        owner: 'w1',
        leaseNow: now,
        leaseUntil: now + 60_000,
        max: 2,
        perMerchant: 2,
        inFlight: new Map([[busy, 2]]),
      }),
    );
    expect(claimed.map((e) => [e.id, e.merchantId])).toEqual([[ids.other, other]]);
  });

  it('claims at most max, at most perMerchant of one merchant, oldest due first, and never what another holds', async () => {
    const { now, ids } = await twoMerchantsWithEvents(4);
    const claim = (owner: string) =>
      app.ctx.store.transaction((tx) =>
        tx.claimDueEvents({
          now,
          owner,
          leaseNow: now,
          leaseUntil: now + 60_000,
          max: 3,
          perMerchant: 2,
          inFlight: new Map(),
        }),
      );
    expect((await claim('w1')).map((e) => e.id)).toEqual([ids.busy[0], ids.busy[1], ids.other]);
    expect((await claim('w2')).map((e) => e.id)).toEqual([ids.busy[2], ids.busy[3]]);
    expect(await claim('w3')).toEqual([]);
  });
});
