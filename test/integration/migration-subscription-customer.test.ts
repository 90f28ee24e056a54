import { afterEach, describe, expect, it } from 'vitest';
import { parseTime } from '../../src/domain/time.js';
import { invoiceDetail } from '../../src/services/documents/queries.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { type TestApp, testApp } from '../helpers/ctx.js';
import { migration } from '../helpers/migrations.js';
import { rowsOf } from '../helpers/rows.js';
import { merchantWithPlan, subscribe } from '../helpers/subscriptions.js';

/**
 * The migration that keeps a subscription's customer on it: a subscription made before it bills
 * its renewals to the customer of its first invoice, as it did before the upgrade. The engine's own
 * migration file is run on a subscription as the release before left it (no customer kept).
 */
let app: TestApp;
afterEach(async () => app?.close());

const t = (s: string): number => parseTime(s, 'UTC');

describe('the subscription customer migration', () => {
  it('gives a subscription made before it the customer of its first invoice, which its renewals then bill', async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const sub = await subscribe(ctx, merchantId, planId);
    const rows = rowsOf(ctx);
    await rows.run(
      `UPDATE invoices SET customer = '{"name":"Ada Lovelace","addressLines":["1 Main St"]}' WHERE subscription_id = ?`,
      sub.subscriptionId,
    );
    await rows.run('UPDATE subscriptions SET customer = NULL');

    for (const statement of migration('subscription_customer_backfill')) await rows.run(statement);

    const kept = await rows.get<{ customer: string }>(
      'SELECT customer FROM subscriptions WHERE id = ?',
      sub.subscriptionId,
    );
    expect(JSON.parse(kept.customer)).toEqual({ name: 'Ada Lovelace', addressLines: ['1 Main St'] });
    clock.set(t('2026-02-10 12:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ succeeded: 1 });
    const d = await invoiceDetail(ctx, merchantId, { invoiceNumber: 'INV-000002' });
    expect(d.customer).toEqual({ name: 'Ada Lovelace', addressLines: ['1 Main St'] });
  });

  it('writes nothing to a subscription that has no invoice', async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { trialDays: 14 });
    const sub = await subscribe(ctx, merchantId, planId, { billingAddress: { firstName: 'Ada', street: '1 Main St' } });
    const rows = rowsOf(ctx);
    const before = await rows.get<{ customer: string }>(
      'SELECT customer FROM subscriptions WHERE id = ?',
      sub.subscriptionId,
    );

    for (const statement of migration('subscription_customer_backfill')) await rows.run(statement);

    const after = await rows.get<{ customer: string }>(
      'SELECT customer FROM subscriptions WHERE id = ?',
      sub.subscriptionId,
    );
    expect(JSON.parse(after.customer)).toEqual({ name: 'Ada', addressLines: ['1 Main St'] });
    expect(after).toEqual(before);
  });
});
