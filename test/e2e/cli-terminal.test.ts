import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { tempDir } from '../helpers/ctx.js';
import { paygatePty, paygatePtyRun } from '../helpers/pty.js';

/** An SGR sequence: what colour (and bold/dim) is made of. */
const SGR = /\x1b\[[0-9;]*m/;

let dir: string;
let cleanup: () => void;
let db: string;
const cli = (args: string[]) => paygate(['--db', db, ...args]);

beforeAll(() => {
  ({ dir, cleanup } = tempDir());
  db = join(dir, 'paygate.db');
  expect(cli(['merchant', 'create', '--name', 'Shop']).status).toBe(0);
});
afterAll(() => cleanup());

describe('colour follows NO_COLOR, FORCE_COLOR and --no-color', () => {
  const list = (env: NodeJS.ProcessEnv, extra: string[] = []) => paygatePtyRun(['--db', db, 'merchant', 'list', ...extra], { env });

  it('a terminal gets colour by default', async () => {
    expect((await list({})).output).toMatch(SGR);
  });
  it('NO_COLOR=1 turns it off', async () => {
    const r = await list({ NO_COLOR: '1' });
    expect(r.status).toBe(0);
    expect(r.output).toContain('Shop');
    expect(r.output).not.toMatch(SGR);
  });
  it('an empty NO_COLOR is no request (no-color.org)', async () => {
    expect((await list({ NO_COLOR: '' })).output).toMatch(SGR);
  });
  it('--no-color turns it off, after the command too', async () => {
    expect((await list({}, ['--no-color'])).output).not.toMatch(SGR);
    expect((await paygatePtyRun(['--no-color', '--db', db, 'merchant', 'list'])).output).not.toMatch(SGR);
  });
  it('FORCE_COLOR=0 turns it off; FORCE_COLOR=1 colours a terminal that announces none (TERM=dumb), even with NO_COLOR', async () => {
    expect((await list({ FORCE_COLOR: '0' })).output).not.toMatch(SGR);
    expect((await list({ TERM: 'dumb' })).output).not.toMatch(SGR);
    expect((await list({ TERM: 'dumb', FORCE_COLOR: '1' })).output).toMatch(SGR);
    expect((await list({ NO_COLOR: '1', FORCE_COLOR: '1' })).output).toMatch(SGR);
  });
  it('--no-color beats FORCE_COLOR', async () => {
    expect((await list({ FORCE_COLOR: '3' }, ['--no-color'])).output).not.toMatch(SGR);
  });
});
