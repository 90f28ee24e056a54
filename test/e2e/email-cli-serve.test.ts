import { afterEach, describe, expect, it } from 'vitest';
import { paygateAsync } from '../helpers/cli-async.js';
import { startServe, type Served } from '../helpers/serve.js';
import { shopDatabase } from '../helpers/shop-db.js';
import { type SmtpHarness, startSmtp } from '../helpers/smtp.js';
import { pause } from '../../src/notify/pause.js';

/**
 * Customer email through the real binary (SPEC §17): `renew` sends after its run, `serve` sends
 * continuously, `email list|resend` and `sub update --email` as an operator uses them, each on
 * the run's engine against a real SMTP server on loopback.
 */

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** Wait for the server to hold `n` messages: bounded in polls, never a timed assertion. */
async function received(smtp: SmtpHarness, n: number): Promise<number> {
  for (let i = 0; i < 600 && smtp.received.length < n; i++) await pause(100);
  return smtp.received.length;
}

describe('customer email from the CLI and serve', () => {
  it('renew sends "renewal failed" after its run; email list shows it SENT; resend queues it and serve sends it again', async () => {
    const t = await shopDatabase({ prefix: 'paygate-email-' });
    cleanup.push(t.drop);
    const smtp = await startSmtp();
    cleanup.push(() => smtp.close());
    const env = { PAYGATE_SMTP_URL: smtp.url };
    const run = async (...args: string[]): Promise<Record<string, unknown>> => {
      const r = await paygateAsync(['--db', t.db, '--json', ...args], env);
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };
    const merchant = await run('merchant', 'create', '--name', 'Acme Shop');
    const merchantId = String(merchant.merchantId);
    await run('merchant', 'update', merchantId, '--email-from', 'billing@acme.test');
    const plan = await run('plan', 'create', '--name', 'Pro', '--price', '9.99', '--cycle-type', 'MONTHLY');
    const sub = await paygateAsync(
      [
        '--db',
        t.db,
        '--json',
        'subscribe',
        '--plan',
        String(plan.planId),
        '--user',
        'u-1',
        '--card',
        '4000000000000341',
        '--exp',
        '12/2049',
        '--cvv',
        '123',
      ],
      env,
    );
    const code = String((JSON.parse(sub.stdout) as Record<string, unknown>).subscriptionCode);

    const bad = await paygateAsync(['--db', t.db, 'sub', 'update', code, '--email', 'ada at example'], env);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/email/);
    expect(await run('sub', 'update', code, '--email', 'ada@example.com')).toMatchObject({ email: 'ada@example.com' });

    expect(await run('renew', '--at', '2040-06-01 00:00:00')).toMatchObject({ retriesScheduled: 1, emailsSent: 1 });
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]?.mail.from?.value).toEqual([{ name: 'Acme Shop', address: 'billing@acme.test' }]);
    const listed = (await run('email', 'list', '--status', 'SENT')) as unknown as Array<Record<string, unknown>>;
    expect(listed).toEqual([expect.objectContaining({ kind: 'renewal-failed', to: 'ada@example.com', attempts: 1 })]);

    const missing = await paygateAsync(['--db', t.db, 'email', 'resend', 'eml_nope'], env);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(await run('email', 'resend', String(listed[0]?.emailId))).toMatchObject({ status: 'PENDING' });

    const served: Served = await startServe({ dbPath: t.db, env });
    cleanup.push(() => served.stop());
    expect(await received(smtp, 2)).toBe(2);
    expect(smtp.received[1]?.mail.subject).toBe(smtp.received[0]?.mail.subject);
  }, 120_000);
});
