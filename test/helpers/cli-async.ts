import { spawn } from 'node:child_process';
import { track } from './children.js';
import { BIN } from './cli.js';
import { TEST_STRIPE_TIMEOUT_MS, TEST_VAULT_KEY } from './env.js';

export interface AsyncCliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The real built CLI without blocking this process — needed when the test process itself runs
 * the HTTP receiver the CLI talks to (spawnSync would freeze the receiver).
 */
export function paygateAsync(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  opts: { input?: string } = {},
): Promise<AsyncCliResult> {
  return new Promise((resolve) => {
    const child = track(
      spawn(process.execPath, [BIN, ...args], {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          PAYGATE_VAULT_KEY: TEST_VAULT_KEY,
          PAYGATE_STRIPE_TIMEOUT_MS: TEST_STRIPE_TIMEOUT_MS,
          ...env,
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    );
    // stdin is a pipe carrying `input` (empty without), then closed: as `echo … | paygate …` gives.
    child.stdin.end(opts.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
