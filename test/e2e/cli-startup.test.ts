import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { tempDir } from '../helpers/env.js';

let dir: string;
let cleanup: () => void;
beforeAll(() => ({ dir, cleanup } = tempDir()));
afterAll(() => cleanup());

/** A database that exists already: only the failure is printed. */
function existingDb(name: string): string {
  const db = join(dir, name);
  expect(paygate(['--db', db, 'merchant', 'list']).status).toBe(0);
  return db;
}

/** One clear line on stderr, exit 2, no "error 9999", no stack trace. */
function expectStartupFailure(r: ReturnType<typeof paygate>, text: RegExp): void {
  expect(r.status).toBe(2);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/^error startup: /);
  expect(r.stderr).toMatch(text);
  expect(r.stderr).not.toContain('9999');
}

describe('start-up failures are one clear line with exit 2', () => {
  it('serve on a port in use (EADDRINUSE)', async () => {
    const taken: Server = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as { port: number }).port;
    try {
      const r = paygate(['--db', existingDb('a.db'), 'serve', '--port', String(port)]);
      expectStartupFailure(r, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the address is already in use`));
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
    }
  });

  it('serve with a missing TLS file', () => {
    const r = paygate([
      '--db',
      existingDb('b.db'),
      'serve',
      '--port',
      '0',
      '--tls-cert',
      join(dir, 'nope.pem'),
      '--tls-key',
      join(dir, 'nope.key'),
    ]);
    expectStartupFailure(r, /--tls-cert: cannot read .*nope\.pem: no such file/);
  });

  it('serve with a TLS file that is not PEM', () => {
    const junk = join(dir, 'junk.pem');
    writeFileSync(junk, 'not a certificate\n');
    const r = paygate(['--db', existingDb('c.db'), 'serve', '--port', '0', '--tls-cert', junk, '--tls-key', junk]);
    expectStartupFailure(r, /not a usable PEM certificate/);
  });

  it('a file that is not a database', () => {
    const file = join(dir, 'garbage.db');
    writeFileSync(file, 'this is not sqlite, it is a shopping list\n'.repeat(200));
    expectStartupFailure(
      paygate(['--db', file, 'merchant', 'list']),
      /cannot open database .*garbage\.db: it is not a SQLite database file; nothing was changed/,
    );
  });

  it('a database path that is a directory', () => {
    const d = join(dir, 'dir.db');
    mkdirSync(d);
    expectStartupFailure(
      paygate(['--db', d, 'merchant', 'list']),
      /cannot open database .*dir\.db: it is a directory \(a database is a file, for example .*dir\.db\/paygate\.db\); nothing was changed/,
    );
  });
});

describe('version and shell completion', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

  it('-v and --version print the package version', () => {
    for (const flag of ['-v', '--version']) {
      const r = paygate([flag]);
      expect(r.status).toBe(0);
      expect(r.stdout.trim()).toBe(pkg.version);
    }
  });

  /** Ask the generated bash completion what it offers after `words`. */
  function complete(words: string[]): string[] {
    const script = paygate(['completion', 'bash']).stdout;
    const r = spawnSync(
      'bash',
      [
        '-c',
        `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _paygate; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      {
        encoding: 'utf8',
      },
    );
    expect(r.stderr).toBe('');
    return r.stdout.split('\n').filter(Boolean);
  }

  it('bash: commands, subcommands and their options, skipping option values', () => {
    expect(complete(['paygate', ''])).toEqual(
      expect.arrayContaining(['merchant', 'sub', 'serve', 'completion', '--db', '--json']),
    );
    expect(complete(['paygate', 'su']).sort()).toEqual(['sub', 'subscribe']);
    expect(complete(['paygate', '--db', 'x.db', 'sub', ''])).toEqual(
      expect.arrayContaining(['list', 'show', 'cancel']),
    );
    expect(complete(['paygate', 'sub', 'cancel', 'sub_123', '--'])).toEqual(
      expect.arrayContaining(['--yes', '--help']),
    );
    expect(complete(['paygate', 'completion', ''])).toEqual(expect.arrayContaining(['bash', 'zsh']));
  });

  it('zsh: the same through bashcompinit; an unknown shell is a usage error', () => {
    const z = paygate(['completion', 'zsh']);
    expect(z.status).toBe(0);
    expect(z.stdout).toContain('bashcompinit');
    expect(z.stdout).toContain('complete -o default -F _paygate paygate');
    expect(paygate(['completion', 'fish']).status).toBe(2);
  });
});
