import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_STRIPE_TIMEOUT_MS, TEST_VAULT_KEY } from './env.js';

export const BIN = fileURLToPath(new URL('../../bin/paygate.js', import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  json: () => any;
}

/**
 * Only a guard against a process that hangs, never a speed limit: on a loaded machine (a whole
 * suite under stress-ng on 2 cores) a healthy CLI call on PostgreSQL took over 60 s, and the old
 * 60 s kill left a test parsing empty output ("Unexpected end of JSON input").
 */
const HANG_GUARD_MS = 600_000;

/** The command without card numbers (tests pass test cards as arguments). */
function described(args: string[]): string {
  return `paygate ${args.join(' ').replace(/\d{12,19}/g, '****')}`;
}

/** How a process ended, in words: its exit status or the signal that ended it, and its stderr. */
function endOf(r: SpawnSyncReturns<string>): string {
  const how = r.signal
    ? `killed by ${r.signal}${r.error ? ` (${r.error.message})` : ''}`
    : `exit status ${String(r.status)}`;
  return `${how}; stderr: ${r.stderr.trim() || '(empty)'}`;
}

/** Run the real built `paygate` binary (not a terminal: JSON output, no prompts). */
export function paygate(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string } = {},
): CliResult {
  const r: SpawnSyncReturns<string> = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    input: opts.input ?? '',
    cwd: opts.cwd,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PAYGATE_VAULT_KEY: TEST_VAULT_KEY,
      PAYGATE_STRIPE_TIMEOUT_MS: TEST_STRIPE_TIMEOUT_MS,
      ...opts.env,
    },
    timeout: HANG_GUARD_MS,
  });
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    json: () => {
      if (r.stdout.trim() === '') throw new Error(`${described(args)} printed no JSON: ${endOf(r)}`);
      return JSON.parse(r.stdout);
    },
  };
}
