import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { paygateAsync } from '../helpers/cli-async.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';
import { paygatePtyRun } from '../helpers/pty.js';
import { cardYear } from '../helpers/cards.js';

/** A window-title change, a bell, a colour change and a C1 CSI: what an attacker would plant. */
const EVIL = '\x1b]0;pwned\x07\x1b[31mred\x9b2J';
const SHOWN = '\\x1b]0;pwned\\x07\\x1b[31mred\\x9b2J';

let shopDb: ShopDatabase;
let db: string;
const cli = (args: string[]) => paygate(['--db', db, ...args]);
const card = ['--card', '4242424242424242', '--exp', `12/${cardYear()}`, '--cvv', '123'];

beforeAll(async () => {
  shopDb = await shopDatabase();
  db = shopDb.db;
  // A receiver whose error body carries the same escapes.
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(500, { 'content-type': 'text/plain' }).end(`boom ${EVIL}`));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notify`;
  expect(cli(['merchant', 'create', '--name', 'Shop', '--notify-url', url]).status).toBe(0);
  const plan = cli(['plan', 'create', '--name', `Gold ${EVIL}`, '--price', '9.99', '--cycle-type', 'MONTHLY']).json();
  expect(cli(['pay', '--amount', '1.00', ...card, '--relation', `ord ${EVIL}`]).status).toBe(0);
  expect(cli(['subscribe', '--plan', plan.planId, '--user', `u ${EVIL}`, ...card]).status).toBe(0);
  expect((await paygateAsync(['--db', db, 'events', 'deliver'])).status).toBe(0);
  receiver.closeAllConnections();
  await new Promise<void>((r) => receiver.close(() => r()));
});
afterAll(() => shopDb.drop());

describe('outside text on a terminal has its control characters made visible', () => {
  for (const [what, args] of [
    ['relationId in tx list', ['tx', 'list']],
    ['planName in plan list', ['plan', 'list']],
    ['userId and planName in sub list', ['sub', 'list']],
    ["a receiver's error body in events list", ['events', 'list']],
  ] as const) {
    it(what, async () => {
      const r = await paygatePtyRun(['--db', db, ...args], { cols: 400, env: { NO_COLOR: '1' } });
      expect(r.status).toBe(0);
      expect(r.output).not.toContain('\x1b]');
      expect(r.output).not.toContain('\x07');
      expect(r.output).not.toContain('\x9b');
      expect(r.output).not.toContain('\x1b[31m');
      expect(r.output).toContain(SHOWN);
    });
  }

  it('in plain detail output (tx show)', async () => {
    const id = cli(['tx', 'list'])
      .json()
      .find((t: { relationId: string }) => t.relationId === `ord ${EVIL}`).transactionOrderId;
    const r = await paygatePtyRun(['--db', db, 'tx', 'show', id], { cols: 400 });
    expect(r.output).not.toContain('\x1b]');
    expect(r.output).toContain(SHOWN);
  });

  it('--json keeps the exact text (JSON escapes, nothing rewritten)', () => {
    const rows = cli(['tx', 'list', '--json']).json();
    expect(rows.map((t: { relationId: string }) => t.relationId)).toContain(`ord ${EVIL}`);
    const events = cli(['events', 'list', '--json']).json();
    expect(events.some((e: { lastError?: string }) => e.lastError?.includes(EVIL))).toBe(true);
  });
});
