import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { tempDir } from '../helpers/env.js';

let dir: string;
let cleanup: () => void;
beforeAll(() => ({ dir, cleanup } = tempDir()));
afterAll(() => cleanup());

describe('creating a database says where, once', () => {
  it('the first command in a directory creates ./paygate.db and prints one line on stderr naming it', () => {
    const cwd = join(dir, 'shop');
    mkdirSync(cwd);
    const r = paygate(['merchant', 'list', '--json'], { cwd });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(`paygate: created a new database at ${join(cwd, 'paygate.db')}\n`);
    expect(r.json()).toEqual([]);
    expect(existsSync(join(cwd, 'paygate.db'))).toBe(true);
    const again = paygate(['merchant', 'list', '--json'], { cwd });
    expect(again.stderr).toBe('');
  });

  it('PAYGATE_DB from any directory opens that database, and says nothing once it exists', () => {
    const db = join(dir, 'srv', 'paygate.db');
    mkdirSync(join(dir, 'srv'));
    const first = paygate(['merchant', 'create', '--name', 'Shop', '--json'], { cwd: dir, env: { PAYGATE_DB: db } });
    expect(first.stderr).toBe(`paygate: created a new database at ${db}\n`);
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    const r = paygate(['renew', '--json'], { cwd: elsewhere, env: { PAYGATE_DB: db } });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(paygate(['merchant', 'list', '--json'], { cwd: elsewhere, env: { PAYGATE_DB: db } }).json()).toHaveLength(1);
    expect(existsSync(join(elsewhere, 'paygate.db'))).toBe(false);
  });
});
