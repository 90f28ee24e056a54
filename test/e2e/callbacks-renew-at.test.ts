import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { paygateAsync } from '../helpers/cli-async.js';
import { shopDatabase } from '../helpers/shop-db.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/*
 * Callbacks of a renewal run on a test clock (renew --at): business times in the body follow
 * the test clock, the signature's transport timestamp is the real time, so a merchant's server
 * verifying with the README's code (±300 s of its own clock) accepts them.
 */

type Verifier = (header: string | undefined, rawBody: string, secret: string, toleranceSec?: number) => boolean;

/** The v2 verifier exactly as the README prints it. */
async function readmeVerifier(dir: string): Promise<Verifier> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? '')
    .find((b) => b.includes('verifyPaygateV2'));
  if (!block) throw new Error('README has no verifyPaygateV2 example');
  const file = join(dir, 'readme-verifier.ts');
  writeFileSync(file, block);
  const mod = (await import(pathToFileURL(file).href)) as { verifyPaygateV2: Verifier };
  return mod.verifyPaygateV2;
}

let rx: Receiver | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await rx?.close();
  await cleanup?.();
});

describe('renew --at far in the future', () => {
  it('sends callbacks whose v2 signatures verify with the README verifier, with business times on the test clock', async () => {
    const t = await shopDatabase({ prefix: 'paygate-renew-at-' });
    cleanup = t.drop;
    rx = await startReceiver();
    const db = t.db;
    // Not spawnSync: the receiver runs in this process and must answer while paygate runs.
    const run = async (...args: string[]): Promise<Record<string, string>> => {
      const r = await paygateAsync(['--db', db, '--json', ...args]);
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Record<string, string>;
    };
    const merchant = await run('merchant', 'create', '--name', 'Future Shop', '--notify-url', rx.url('/hooks'));
    const plan = await run('plan', 'create', '--name', 'Monthly', '--price', '9.99', '--cycle-type', 'MONTHLY');
    await run(
      'subscribe',
      '--plan',
      plan.planId ?? '',
      '--user',
      'u-1',
      '--card',
      '4242424242424242',
      '--exp',
      '12/2049',
      '--cvv',
      '123',
    );
    const summary = await run('renew', '--at', '2040-06-01 00:00:00');
    expect(summary).toMatchObject({ succeeded: 1, callbacksDelivered: 2 });

    const verify = await readmeVerifier(t.dir);
    const renewed = rx.received.find((r) => r.body.eventType === 'RENEW_SUCCEEDED');
    expect(renewed?.body.eventTime).toMatch(/^2040-06-01 /);
    expect(rx.received.length).toBeGreaterThanOrEqual(2); // the first charge's PAYMENT and the renewal
    for (const got of rx.received) {
      expect(verify(got.headers['x-paygate-signature'] as string | undefined, got.rawBody, merchant.secret ?? '')).toBe(
        true,
      );
    }
  }, 60_000);
});
