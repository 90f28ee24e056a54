import { chmodSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { tempDir } from '../helpers/env.js';
import { client, createMerchant, startServe } from '../helpers/serve.js';

/**
 * SPEC §1: the database, its WAL and shared-memory files and backups are created mode 0600, under
 * the common umask 022 that would otherwise make them world-readable (0644).
 */

let umask: number;
beforeAll(() => {
  umask = process.umask(0o022);
});
afterAll(() => {
  process.umask(umask);
});

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

function modes(db: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(db + suffix)) out[`db${suffix}`] = mode(db + suffix);
  return out;
}

const card = JSON.stringify({
  cardNumber: '4242424242424242',
  month: '12',
  year: String(new Date().getUTCFullYear() + 2),
  cvv: '123',
});

describe('database file modes under umask 022', () => {
  it('a new database, its WAL and shared-memory files are 0600, also after serve restarts', async () => {
    const t = tempDir('paygate-modes-');
    try {
      const db = join(t.dir, 'shop.db');
      const m = createMerchant(db, 2);
      expect(modes(db)).toEqual({ db: '600' });

      for (let round = 0; round < 2; round++) {
        const srv = await startServe({ dbPath: db });
        try {
          const r = await client(srv.url, m).post(`/payment/${m.apiKey}/transaction`, {
            requestId: `m-${round}`,
            relationId: `m-${round}`,
            paymentType: 'PAY',
            payAmount: '1.00',
            currency: 'USD',
            cardInfo: card,
          });
          expect(r.body.rtn_code).toBe('0000');
          // serve holds the database open: the WAL and the shared-memory file exist now.
          expect(modes(db)).toEqual({ db: '600', 'db-wal': '600', 'db-shm': '600' });
        } finally {
          await srv.stop();
        }
      }
    } finally {
      t.cleanup();
    }
  });

  it('serve creating its database itself makes it 0600', async () => {
    const srv = await startServe();
    try {
      expect(modes(srv.dbPath)).toEqual({ db: '600', 'db-wal': '600', 'db-shm': '600' });
    } finally {
      await srv.stop();
    }
  });

  it('db backup writes a 0600 copy', () => {
    const t = tempDir('paygate-modes-');
    try {
      const db = join(t.dir, 'shop.db');
      createMerchant(db, 2);
      const copy = join(t.dir, 'copy.db');
      const r = paygate(['--db', db, 'db', 'backup', copy]);
      expect(r.status).toBe(0);
      expect(mode(copy)).toBe('600');
      expect(paygate(['--db', copy, '--json', 'merchant', 'list']).json()).toHaveLength(1);
    } finally {
      t.cleanup();
    }
  });

  it('a database an earlier version left world-readable is made 0600 when opened', () => {
    const t = tempDir('paygate-modes-');
    try {
      const db = join(t.dir, 'shop.db');
      createMerchant(db, 2);
      chmodSync(db, 0o644);
      expect(paygate(['--db', db, 'merchant', 'list']).status).toBe(0);
      expect(mode(db)).toBe('600');
    } finally {
      t.cleanup();
    }
  });
});
