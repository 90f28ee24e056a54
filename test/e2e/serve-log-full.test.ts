import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { track } from '../helpers/children.js';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/env.js';
import { serveEnv } from '../helpers/serve.js';

/**
 * `serve` whose log (standard output, a file) can no longer be written: a full disk, simulated
 * with `ulimit -f` (EFBIG, and SIGXFSZ, which Node ignores) or /dev/full (ENOSPC). The server
 * keeps answering, the lines are dropped with one line on stderr, and SIGTERM still stops it.
 */

const dirs: Array<{ cleanup: () => void }> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

interface Run {
  proc: ChildProcess;
  stderr(): string;
  exited: Promise<number | null>;
}

/** The file size limit `ulimit -f blocks` sets, in bytes (shells count blocks of 512 or 1024 bytes). */
function limitBytes(blocks: number): number {
  const r = spawnSync('sh', ['-c', `ulimit -f ${blocks}; exec cat /proc/self/limits`], { encoding: 'utf8' });
  const m = /^Max file size\s+(\d+)/m.exec(r.stdout);
  if (!m?.[1]) throw new Error(`no file size limit in ${r.stdout}${r.stderr}`);
  return Number(m[1]);
}

/** serve through sh, its stdout appended to `out` (`ulimit -f blocks` first when given). */
function serveTo(dir: string, out: string, blocks?: number, prefill = 0): Run {
  if (out !== '/dev/full') writeFileSync(out, prefill > 0 ? `${'x'.repeat(prefill - 1)}\n` : '');
  const limit = blocks === undefined ? '' : `ulimit -f ${blocks}; `;
  const cmd = `${limit}exec "$0" "$1" --db "$2" serve --port 0 --no-renew >> "$3"`;
  const proc = track(
    spawn('sh', ['-c', cmd, process.execPath, BIN, join(dir, 'shop.db'), out], {
      env: serveEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  let err = '';
  proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  // Every run starts on a new database: its note is not what these tests are about.
  const stderr = (): string => err.replace(/^paygate: created a new database at .*\n/m, '');
  return { proc, stderr, exited };
}

async function listeningUrl(out: string, run: Run): Promise<string> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    const m = /paygate listening on (http:\/\/\S+)/.exec(readFileSync(out, 'utf8'));
    if (m?.[1]) return m[1];
    if (run.proc.exitCode !== null) throw new Error(`serve exited ${run.proc.exitCode}: ${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`serve did not start: ${run.stderr()}`);
}

async function healthz(url: string): Promise<number> {
  const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(3000) });
  await res.arrayBuffer();
  return res.status;
}

/** Exit status of a SIGTERM'd serve, or 'hung' when it is still running after `ms`. */
async function stopWithin(run: Run, ms: number): Promise<number | null | 'hung'> {
  run.proc.kill('SIGTERM');
  const timeout = new Promise<'hung'>((r) => setTimeout(() => r('hung'), ms));
  const result = await Promise.race([run.exited, timeout]);
  if (result === 'hung') run.proc.kill('SIGKILL');
  return result;
}

describe('serve whose log cannot be written', () => {
  it('the log file reaching its size limit mid-run: requests still answered, one line on stderr, SIGTERM exits 0', async () => {
    const tmp = tempDir('paygate-logfull-');
    dirs.push(tmp);
    const out = join(tmp.dir, 'serve.log');
    // The limit applies to the database too: 4096 blocks (2 or 4 MB) it fits in. The log starts
    // 4 KB short of it: the listening line fits, a few dozen request lines do not.
    const limit = limitBytes(4096);
    const run = serveTo(tmp.dir, out, 4096, limit - 4096);
    const url = await listeningUrl(out, run);
    const statuses: Array<number | string> = [];
    for (let i = 0; i < 80; i++) statuses.push(await healthz(url).catch((e: Error) => e.name));
    expect(statuses).toEqual(Array(80).fill(200));
    const logged = readFileSync(out, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"msg":"request"')).length;
    expect(logged).toBeGreaterThan(0);
    expect(logged).toBeLessThan(80); // the limit was reached: lines were dropped
    expect(statSync(out).size).toBe(limit);

    expect(await stopWithin(run, 5000)).toBe(0);
    const errLines = run.stderr().trim().split('\n');
    expect(errLines).toEqual([
      'paygate: cannot write the log (EFBIG: file too large); log lines are dropped until it can be written again',
    ]);
  });

  it('standard output on /dev/full at start: a one-line start-up error, exit 2, no stack trace', async () => {
    const tmp = tempDir('paygate-logfull-');
    dirs.push(tmp);
    const run = serveTo(tmp.dir, '/dev/full');
    const status = await Promise.race([run.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000))]);
    if (status === 'hung') run.proc.kill('SIGKILL');
    expect(status).toBe(2);
    expect(run.stderr()).toBe('error startup: cannot write to standard output: ENOSPC: no space left on device\n');
  });

  it('a log that can be written loses no line: every request, the shutdown line and "paygate stopped"', async () => {
    const tmp = tempDir('paygate-logfull-');
    dirs.push(tmp);
    const out = join(tmp.dir, 'serve.log');
    const run = serveTo(tmp.dir, out);
    const url = await listeningUrl(out, run);
    for (let i = 0; i < 50; i++) expect(await healthz(url)).toBe(200);
    expect(await stopWithin(run, 10_000)).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text.split('\n').filter((l) => l.includes('"msg":"request"'))).toHaveLength(50);
    expect(text).toContain('"msg":"shutting down: finishing in-flight requests"');
    expect(text.trimEnd().endsWith('paygate stopped')).toBe(true);
    expect(run.stderr()).not.toContain('cannot write the log');
  });
});
