import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { FixedClock } from '../../src/domain/clock.js';
import { parseTime } from '../../src/domain/time.js';
import { invoiceDetail } from '../../src/services/documents/queries.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { onPostgres, type TestApp, TEST_VAULT_KEY, testApp } from '../helpers/ctx.js';
import { rowsOf } from '../helpers/rows.js';
import { merchantWithPlan, subscribe } from '../helpers/subscriptions.js';

/**
 * The migration that keeps a subscription's customer on it: a subscription made before it bills
 * its renewals to the customer of its first invoice, as it did before the upgrade.
 */
let app: TestApp;
afterEach(async () => app?.close());

const t = (s: string): number => parseTime(s, 'UTC');
const DRIZZLE = join(import.meta.dirname, '../../drizzle');
const journal = (dir: string) =>
  (
    JSON.parse(readFileSync(join(dir, 'meta/_journal.json'), 'utf8')) as {
      entries: Array<{ when: number; tag: string }>;
    }
  ).entries;

describe('the subscription customer migration', () => {
  it('gives a subscription made before it the customer of its first invoice, which its renewals then bill', async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const sub = await subscribe(ctx, merchantId, planId);
    const rows = rowsOf(ctx);
    // The database as the release before left it: no customer column, the migrations from the one that added it not applied.
    const entries = journal(onPostgres ? join(DRIZZLE, 'postgres') : DRIZZLE);
    const since = entries.find((e) => e.tag.endsWith('_subscription_customer'))?.when ?? 0;
    await rows.run('ALTER TABLE subscriptions DROP COLUMN customer');
    await rows.run(`DELETE FROM ${onPostgres ? 'drizzle.' : ''}__drizzle_migrations WHERE created_at >= ?`, since);
    await rows.run(
      `UPDATE invoices SET customer = '{"name":"Ada Lovelace","addressLines":["1 Main St"]}' WHERE subscription_id = ?`,
      sub.subscriptionId,
    );

    const clock = new FixedClock(t('2026-02-10 12:00:00'));
    const upgraded = await openApp(
      loadConfig({ db: app.dbPath, tz: 'UTC' }, { PAYGATE_VAULT_KEY: TEST_VAULT_KEY, PAYGATE_DB_POOL: '2' }),
      { clock },
    );
    try {
      const kept = await rowsOf(upgraded).get<{ customer: string }>(
        'SELECT customer FROM subscriptions WHERE id = ?',
        sub.subscriptionId,
      );
      expect(JSON.parse(kept.customer)).toEqual({ name: 'Ada Lovelace', addressLines: ['1 Main St'] });
      expect(await runRenewal(upgraded)).toMatchObject({ succeeded: 1 });
      const d = await invoiceDetail(upgraded, merchantId, { invoiceNumber: 'INV-000002' });
      expect(d.customer).toEqual({ name: 'Ada Lovelace', addressLines: ['1 Main St'] });
    } finally {
      await upgraded.close();
    }
  });
});
