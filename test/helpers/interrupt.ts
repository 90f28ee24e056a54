import { spawn } from 'node:child_process';
import { track } from './children.js';
import { BIN } from './cli.js';
import { TEST_VAULT_KEY } from './env.js';

export interface InterruptedRun {
  /** Exit status, or null when the signal ended the process itself. */
  status: number | null;
  /** The signal that ended the process, when it did not exit on its own. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** What `progress` read last before the signal was sent. */
  seen: number;
}

/**
 * Run the built `paygate` with `args` and send it `signal` once `progress` (polled every 20 ms)
 * reads more than zero: a long command interrupted mid-way, as Ctrl-C or a service manager does.
 * Rejects when the command ended before anything was seen (it finished too fast to interrupt).
 */
export function interruptWhen(
  args: string[],
  signal: NodeJS.Signals,
  progress: () => number | Promise<number>,
  env: NodeJS.ProcessEnv = {},
): Promise<InterruptedRun> {
  return new Promise((resolve, reject) => {
    const child = track(
      spawn(process.execPath, [BIN, ...args], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, PAYGATE_VAULT_KEY: TEST_VAULT_KEY, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let stdout = '';
    let stderr = '';
    let seen = 0;
    let sent = false;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const poll = async (): Promise<void> => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      seen = await progress();
      if (seen > 0) {
        sent = true;
        child.kill(signal);
        return;
      }
      setTimeout(() => void poll().catch(reject), 20);
    };
    void poll().catch(reject);
    child.on('close', (status, sig) => {
      if (!sent) reject(new Error(`paygate ${args.join(' ')} ended before it could be interrupted: ${stderr}`));
      else resolve({ status, signal: sig, stdout, stderr, seen });
    });
  });
}
