import { execFileSync, spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  appendFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway PostgreSQL cluster for tests: initdb in a temp dir, a server on a free loopback
 * port with the durability paygate promises (fsync, synchronous_commit), removed on stop.
 *
 * PostgreSQL refuses to run as root, so when the tests run as root (CI, this machine) every
 * server binary runs as the `postgres` user through `runuser`, in a directory it owns.
 * This module has no vitest import so the global setup (main process) can use it.
 */

export interface PgCluster {
  /** Superuser URL of the cluster's `postgres` database, e.g. postgres://postgres@127.0.0.1:54321/postgres */
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  /** The server's major version (15 or newer). */
  readonly major: number;
  /** Stops the server and removes its directory; safe to call twice. */
  stop(): void;
}

export type PgBinaries = { ok: true; bin: string; major: number } | { ok: false; reason: string };

const DIR_PREFIX = 'paygate-pg-';
const MIN_MAJOR = 15;

/** Debian installs each major version under /usr/lib/postgresql/N/bin; PAYGATE_PG_BIN overrides. */
export function findPostgres(env: NodeJS.ProcessEnv = process.env): PgBinaries {
  const candidates: string[] = [];
  if (env.PAYGATE_PG_BIN) candidates.push(env.PAYGATE_PG_BIN);
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(join(root, v, 'bin'));
  }
  for (const bin of candidates) {
    if (!existsSync(join(bin, 'initdb')) || !existsSync(join(bin, 'pg_ctl'))) continue;
    const out = spawnSync(join(bin, 'initdb'), ['--version'], { encoding: 'utf8' });
    const major = Number(/(\d+)(?:\.\d+)?/.exec(out.stdout ?? '')?.[1] ?? 0);
    if (major >= MIN_MAJOR) return { ok: true, bin, major };
  }
  return {
    ok: false,
    reason: `no PostgreSQL ${MIN_MAJOR}+ server binaries found (looked in ${candidates.join(', ') || root}); install Debian's postgresql package or set PAYGATE_PG_BIN`,
  };
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** Runs a server binary as the cluster's owner: `postgres` when we are root, ourselves otherwise. */
function runAsOwner(cmd: string, args: string[]): { status: number | null; output: string } {
  const [file, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const r = spawnSync(file, argv, { encoding: 'utf8', cwd: tmpdir() });
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

function postgresIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function stopAndRemove(bin: string, dir: string): void {
  const data = join(dir, 'data');
  if (existsSync(join(data, 'postmaster.pid')))
    runAsOwner(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Clusters left behind by a test run that was killed (SIGKILL skips every teardown): their
 * owner process is gone, so stop them. Clusters of live runs (other checkouts) are left alone.
 */
function reapOrphans(bin: string): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    let owner = 0;
    try {
      owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8').trim());
    } catch {
      continue;
    }
    if (owner > 0 && !alive(owner)) stopAndRemove(bin, dir);
  }
}

/**
 * Starts a cluster. Retries on another port if the chosen one was taken in the meantime
 * (several test runs share this machine). `stop()` is also registered on process exit so an
 * interrupted run does not leave a server behind.
 */
export async function startPgCluster(opts: { maxConnections?: number } = {}): Promise<PgCluster> {
  const found = findPostgres();
  if (!found.ok) throw new Error(found.reason);
  const { bin, major } = found;
  reapOrphans(bin);

  const dir = mkdtempSync(join(tmpdir(), DIR_PREFIX));
  writeFileSync(join(dir, 'owner.pid'), String(process.pid));
  const data = join(dir, 'data');
  if (isRoot()) {
    const { uid, gid } = postgresIds();
    chownSync(dir, uid, gid);
  }
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', stop);
    stopAndRemove(bin, dir);
  };
  process.on('exit', stop);

  try {
    // --no-sync only skips initdb's own flush of the template files; the server runs with fsync on.
    const init = runAsOwner(join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
      '--no-instructions',
    ]);
    if (init.status !== 0) throw new Error(`initdb failed:\n${init.output}`);

    let lastError = '';
    for (let attempt = 0; attempt < 5; attempt++) {
      const port = await freePort();
      appendFileSync(
        join(data, 'postgresql.conf'),
        [
          '',
          '# paygate test cluster',
          "listen_addresses = '127.0.0.1'",
          `port = ${port}`,
          `unix_socket_directories = '${dir}'`,
          'fsync = on',
          'synchronous_commit = on',
          'full_page_writes = on',
          `max_connections = ${opts.maxConnections ?? 200}`,
          "log_min_messages = 'warning'",
          '',
        ].join('\n'),
      );
      const log = join(dir, 'server.log');
      const start = runAsOwner(join(bin, 'pg_ctl'), ['-D', data, '-l', log, '-w', '-t', '60', 'start']);
      if (start.status === 0) {
        return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, port, dir, major, stop };
      }
      lastError = `${start.output}\n${existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : ''}`;
      // A later `port = …` line overrides this one; only a port clash is worth another try.
      if (!/could not bind|address already in use/i.test(lastError)) break;
    }
    throw new Error(`PostgreSQL test cluster did not start:\n${lastError}`);
  } catch (e) {
    stop();
    throw e;
  }
}
