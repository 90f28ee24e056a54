import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { endStrayChildren, track } from '../helpers/children.js';
import { paygate } from '../helpers/cli.js';

describe('processes a test left running', () => {
  it('are ended when their file ends, and named', async () => {
    const child = track(spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600_000)'], { stdio: 'pipe' }));
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    expect(await endStrayChildren()).toEqual([`-e setTimeout(() => {}, 600_000)`]);
    expect(await exited).toBe('SIGKILL');
  });

  it('leave out those that already exited', async () => {
    const child = track(spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }));
    await new Promise((resolve) => child.once('exit', resolve));
    expect(await endStrayChildren()).toEqual([]);
  });
});

describe('a CLI run whose output a test parses as JSON', () => {
  it('that printed nothing says how it ended and what it wrote on stderr, with card numbers masked', () => {
    const r = paygate(['--db', '/nonexistent-dir/x.db', 'pay', '--amount', '1.00', '--card', '4242424242424242']);
    expect(() => r.json()).toThrow(
      /^paygate --db \/nonexistent-dir\/x\.db pay --amount 1\.00 --card \*\*\*\* printed no JSON: exit status \d; stderr: error /,
    );
  });
});
