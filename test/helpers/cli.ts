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
    timeout: 60_000,
  });
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    json: () => JSON.parse(r.stdout),
  };
}
