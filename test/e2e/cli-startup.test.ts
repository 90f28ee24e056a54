import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, paygate } from '../helpers/cli.js';
import { TEST_VAULT_KEY, tempDir } from '../helpers/env.js';
import { startServe } from '../helpers/serve.js';

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

  it("another application's SQLite database: refused and left exactly as it was", () => {
    const file = join(dir, 'notes.db');
    const other = new Database(file);
    other.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('milk'), ('tea')");
    other.close();
    const before = readFileSync(file);
    expectStartupFailure(
      paygate(['--db', file, 'merchant', 'list']),
      /notes\.db is another application's SQLite database \(tables: notes\), not paygate's; nothing was changed/,
    );
    // Not migrated, not switched to WAL (a mode the file would keep), no files beside it.
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.startsWith('notes.db'))).toEqual(['notes.db']);
  });

  // drizzle-kit's migration table is in every database it migrates: it was taken for paygate's,
  // and paygate's tables were migrated into the other application's file.
  it.each([
    ['its own migration table from drizzle-kit', 'CREATE TABLE users (name TEXT)', 1717171717171],
    [
      'a table named like one of paygate’s, migrated after this build',
      'CREATE TABLE merchants (id TEXT)',
      4102444800000,
    ],
  ])("another application's drizzle database (%s): refused and left exactly as it was", (_what, table, migratedAt) => {
    const file = join(dir, 'drizzled.db');
    const other = new Database(file);
    other.exec(table);
    other.exec(
      'CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)',
    );
    other.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run('abc', migratedAt);
    other.close();
    const before = readFileSync(file);
    expectStartupFailure(
      paygate(['--db', file, 'merchant', 'list']),
      /drizzled\.db is another application's SQLite database \(tables: .*\), not paygate's; nothing was changed/,
    );
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.startsWith('drizzled.db'))).toEqual(['drizzled.db']);
    rmSync(file);
  });

  it('a database path that is a directory', () => {
    const d = join(dir, 'dir.db');
    mkdirSync(d);
    expectStartupFailure(
      paygate(['--db', d, 'merchant', 'list']),
      /cannot open database .*dir\.db: it is a directory \(a database is a file, for example .*dir\.db\/paygate\.db\); nothing was changed/,
    );
  });

  // Checked at the first Stripe call instead, it failed each charge 9999 after the charge's
  // transaction was committed ACCEPTED, and left it so.
  it.each(['0', 'abc', '10001'])('a malformed PAYGATE_STRIPE_MAX_RPS (%s): renew and serve refuse to start', (bad) => {
    const db = existingDb(`rps-${bad}.db`);
    const env = { PAYGATE_STRIPE_MAX_RPS: bad };
    const want = new RegExp(
      `PAYGATE_STRIPE_MAX_RPS: must be a whole number of calls per second from 1 to 10000, got "${bad}"`,
    );
    expectStartupFailure(paygate(['--db', db, 'renew'], { env }), want);
    expectStartupFailure(paygate(['--db', db, 'serve', '--port', '0'], { env }), want);
  });

  // They exited 1, which the shipped systemd unit restarts every 2 s; only 2 means "do not restart".
  it.each([
    ['PAYGATE_TZ', 'Nowhere/Zone', /^error 1001: tz: unknown time zone Nowhere\/Zone$/],
    ['PAYGATE_RETRY_DAYS', '0,0,0', /^error 1001: PAYGATE_RETRY_DAYS: /],
    ['PAYGATE_CALLBACK_PRIVATE', 'yes', /^error 1001: PAYGATE_CALLBACK_PRIVATE: /],
    ['PAYGATE_SMTP_URL', 'smtp//bad', /^error 1001: PAYGATE_SMTP_URL: /],
  ])('a bad %s: one line with its code, exit 2 (a start-up error), serve and renew alike', (name, value, want) => {
    const db = existingDb(`setting-${name}.db`);
    for (const args of [['serve', '--port', '0'], ['renew']]) {
      const r = paygate(['--db', db, ...args], { env: { [name]: value } });
      expect([r.status, r.stderr.trim().split('\n').length], args[0]).toEqual([2, 1]);
      expect(r.stderr.trim()).toMatch(want);
    }
  });

  it('an empty PAYGATE_HOST is unset (127.0.0.1), never every interface; --host "" is a usage error', async () => {
    const srv = await startServe({ dbPath: existingDb('host.db'), env: { PAYGATE_HOST: '' } });
    try {
      expect(new URL(srv.url).hostname).toBe('127.0.0.1');
    } finally {
      await srv.stop();
    }
    const r = paygate(['--db', existingDb('host2.db'), 'serve', '--port', '0', '--host', '']);
    expect([r.status, r.stderr]).toEqual([
      2,
      'error usage: --host: name an address (0.0.0.0 listens on every interface)\n',
    ]);
  });
});

/** nobody on Debian-like systems: a user who owns nothing here and whom permission bits do stop. */
const NOBODY = 65534;

/**
 * Run paygate as a user who cannot write `db`. SQLite falls back to read-only only when the open
 * for writing is denied, and permission bits never deny root (the tests run as root): there the
 * command runs as nobody on a file nobody owns with mode 0400, in a directory nobody owns (so only
 * the file refuses writing); as any other user, as itself on its own 0400 file.
 */
function asUserWhoCannotWrite(db: string, args: string[]): ReturnType<typeof paygate> {
  const home = dirname(db);
  chmodSync(db, 0o400);
  if (process.getuid?.() !== 0) return paygate(args);
  chownSync(db, NOBODY, NOBODY);
  chownSync(home, NOBODY, NOBODY);
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    cwd: home,
    uid: NOBODY,
    gid: NOBODY,
    env: { PATH: process.env.PATH, HOME: home, PAYGATE_VAULT_KEY: TEST_VAULT_KEY },
  });
  // The checkout (and Node) must be reachable by others for nobody to run it; say so rather than
  // fail obscurely (a spawn that could not even start has no status and no stderr).
  if (r.error || /Cannot find module|EACCES: permission denied, (open|scandir|lstat) '(?!.*\.db)/.test(r.stderr))
    throw new Error(
      `nobody cannot run ${process.execPath} ${BIN} (make the checkout readable by others, or run this test as a non-root user): ${r.error?.message ?? r.stderr}`,
    );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

describe('a database file paygate cannot write is refused at start-up', () => {
  it('mode 0400 (not its owner’s to write): one line, exit 2, and no WAL or shared-memory file is made', () => {
    const t = tempDir();
    try {
      const db = join(t.dir, 'ro.db');
      expect(paygate(['--db', db, 'merchant', 'list']).status).toBe(0);
      const before = readFileSync(db);
      const r = asUserWhoCannotWrite(db, ['--db', db, 'merchant', 'list']);
      expectStartupFailure(r, /it cannot be opened for writing/);
      expect(r.stderr).toBe(
        `error startup: cannot open database ${db}: it cannot be opened for writing (permission denied); nothing was changed\n`,
      );
      expect(readdirSync(t.dir)).toEqual(['ro.db']);
      expect(statSync(db).mode & 0o777).toBe(0o400);
      expect(readFileSync(db).equals(before)).toBe(true);
    } finally {
      t.cleanup();
    }
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
    expect(paygate(['completion', 'tcsh']).status).toBe(2);
  });

  const fish = spawnSync('fish', ['--version']).status === 0;
  /** Ask fish itself, with the generated script loaded, what it offers for `line`. */
  function fishComplete(line: string): string[] {
    const script = join(dir, 'paygate.fish');
    writeFileSync(script, paygate(['completion', 'fish']).stdout);
    const r = spawnSync('fish', ['--no-config', '-c', `source ${script}; complete -C '${line}'`], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: dir },
    });
    expect(r.stderr).toBe('');
    return r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[0] ?? '');
  }

  // CI installs fish (.ci/run); without it only the script's shape can be checked.
  it.skipIf(!fish && !process.env.CI)(
    'fish: a script fish accepts, completing like bash, skipping option values',
    () => {
      const script = join(dir, 'syntax.fish');
      writeFileSync(script, paygate(['completion', 'fish']).stdout);
      expect(spawnSync('fish', ['--no-execute', script], { encoding: 'utf8' }).stderr).toBe('');
      expect(fishComplete('paygate ')).toEqual(expect.arrayContaining(['merchant', 'sub', 'serve', 'completion']));
      expect(fishComplete('paygate su').sort()).toEqual(['sub', 'subscribe']);
      expect(fishComplete('paygate --db x.db sub ')).toEqual(expect.arrayContaining(['list', 'show', 'cancel']));
      expect(fishComplete('paygate --db x.db sub ')).not.toContain('merchant');
      expect(fishComplete('paygate sub cancel sub_123 --')).toEqual(
        expect.arrayContaining(['--yes', '--merchant', '--help', '--db']),
      );
      expect(fishComplete('paygate sub --')).not.toContain('--yes');
      expect(fishComplete('paygate completion ').sort()).toEqual(['bash', 'fish', 'zsh']);
    },
  );

  it('fish: every command and option of --help is in the script, each with its description', () => {
    const r = paygate(['completion', 'fish']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^# paygate completion for fish: paygate completion fish > ~\/\.config\/fish\/completions\/paygate\.fish\n/,
    );
    expect(r.stdout).toContain("complete -c paygate -n '__paygate_at \\'sub\\'' -a 'cancel' -d ");
    expect(r.stdout).toContain(
      "complete -c paygate -n '__paygate_in \\'sub cancel\\'' -l yes -s y -d 'do not ask for confirmation'",
    );
    expect(r.stdout).toContain('complete -c paygate -l db -r -F -d ');
  });
});

describe('usage errors are one line (SPEC §12)', () => {
  // It started, and never renewed anything.
  it('serve --renew-cron with a schedule no date matches: exit 2, nothing opened', () => {
    const r = paygate(['--db', '/nonexistent-dir/p.db', 'serve', '--renew-cron', '0 0 31 2 *']);
    expect([r.status, r.stderr]).toEqual([
      2,
      'error usage: --renew-cron "0 0 31 2 *": no date matches it, so it would never run\n',
    ]);
  });

  it('a mistyped command: the suggestion on the same line, no literal \\n', () => {
    const r = paygate(['merchnt', 'list']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("error usage: unknown command 'merchnt' (Did you mean merchant?)\n");
  });

  // They printed the help to stderr and exited 0, as if a command had run.
  it('no command, or a group without its subcommand: the help on stderr and exit 2; help asked for is 0', () => {
    for (const args of [[], ['plan']]) {
      const r = paygate(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^Usage: paygate /);
    }
    for (const args of [['--help'], ['help'], ['plan', '--help'], ['help', 'plan']]) {
      const r = paygate(args);
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^Usage: paygate /);
    }
  });

  it('a mistyped option likewise', () => {
    const r = paygate(['merchant', 'list', '--jsn']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("error usage: unknown option '--jsn' (Did you mean --json?)\n");
  });
});
