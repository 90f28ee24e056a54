import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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

  it('an existing database open to group or others keeps its mode, and each command says the chmod that fixes it', () => {
    const t = tempDir('paygate-modes-');
    try {
      const db = join(t.dir, 'shop.db');
      createMerchant(db, 2);
      chmodSync(db, 0o640);
      const r = paygate(['--db', db, 'merchant', 'list']);
      expect(r.status).toBe(0);
      expect(r.stderr).toContain(`warning: the database ${db} is accessible by group or others (mode 0640)`);
      expect(r.stderr).toContain(`chmod 600 ${db}`);
      expect(mode(db)).toBe('640');
    } finally {
      t.cleanup();
    }
  });
});

/**
 * SPEC §1: paygate changes the mode of files it creates and of nothing else. A `--db` that is a
 * directory or not a SQLite file is one line on stderr, exit 2, and leaves the path as it was
 * (`paygate --db /tmp …` once left /tmp at 0700 and broke every PostgreSQL socket in it).
 */
describe('a --db that is not a SQLite database changes nothing', () => {
  const NO_ENV_KEY = { PAYGATE_VAULT_KEY: '' };

  function expectRefused(r: ReturnType<typeof paygate>, path: string, why: RegExp): void {
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error startup: cannot open database /);
    expect(r.stderr).toContain(path);
    expect(r.stderr).toMatch(why);
    expect(existsSync(`${path}.key`)).toBe(false);
  }

  for (const dirMode of [0o755, 0o1777]) {
    it(`a ${dirMode.toString(8)} directory keeps its mode and its contents`, () => {
      const t = tempDir('paygate-modes-');
      try {
        const d = join(t.dir, 'shared');
        mkdirSync(d);
        chmodSync(d, dirMode);
        writeFileSync(join(d, 'other.sock'), '');
        for (const args of [
          ['merchant', 'list'],
          ['db', 'migrate', '--dry-run'],
          ['serve', '--port', '0'],
        ]) {
          expectRefused(paygate(['--db', d, ...args], { env: NO_ENV_KEY }), d, /it is a directory/);
          expect(statSync(d).mode & 0o7777).toBe(dirMode);
          expect(readdirSync(d)).toEqual(['other.sock']);
        }
      } finally {
        t.cleanup();
      }
    });
  }

  it('db copy --to a directory or a file that is not SQLite changes neither', () => {
    const t = tempDir('paygate-modes-');
    try {
      const source = join(t.dir, 'shop.db');
      expect(paygate(['--db', source, 'merchant', 'list']).status).toBe(0);
      const d = join(t.dir, 'shared');
      mkdirSync(d);
      chmodSync(d, 0o1777);
      const file = join(t.dir, 'notes.txt');
      writeFileSync(file, 'not a database\n');
      chmodSync(file, 0o644);
      // A directory is refused before anything is opened, as the --to it names (1001, exit 1).
      const toDir = paygate(['--db', source, 'db', 'copy', '--to', d]);
      expect([toDir.status, toDir.stderr.trim().split('\n').length]).toEqual([1, 1]);
      expect(toDir.stderr).toMatch(/^error 1001: to: .* is a directory: name the database file/);
      expect(existsSync(`${d}.key`)).toBe(false);
      expectRefused(paygate(['--db', source, 'db', 'copy', '--to', file]), file, /not a SQLite database/);
      expect(statSync(d).mode & 0o7777).toBe(0o1777);
      expect(readdirSync(d)).toEqual([]);
      expect(mode(file)).toBe('644');
      expect(readFileSync(file, 'utf8')).toBe('not a database\n');
    } finally {
      t.cleanup();
    }
  });

  it('an existing file that is not SQLite keeps its bytes and its mode', () => {
    const t = tempDir('paygate-modes-');
    try {
      const file = join(t.dir, 'notes.txt');
      const text = 'a shopping list, not a database\n'.repeat(50);
      writeFileSync(file, text);
      chmodSync(file, 0o644);
      expectRefused(paygate(['--db', file, 'merchant', 'list'], { env: NO_ENV_KEY }), file, /not a SQLite database/);
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect(mode(file)).toBe('644');
      expect(readdirSync(t.dir)).toEqual(['notes.txt']);
    } finally {
      t.cleanup();
    }
  });
});
