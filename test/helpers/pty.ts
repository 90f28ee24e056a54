import { spawn } from 'node:child_process';
import { BIN } from './cli.js';
import { TEST_VAULT_KEY } from './env.js';

/** Single-quote a word for sh. */
const sh = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

export interface PtySession {
  /** Everything the terminal showed so far (stdout and stderr, as a user sees them). */
  output: () => string;
  /** Resolves once the output matches `pattern` (rejects if the process ends first). */
  waitFor: (pattern: RegExp | string) => Promise<void>;
  /** Type into the terminal: `\r` is Enter, `\x03` is Ctrl-C. */
  type: (text: string) => void;
  /** The exit status of paygate. */
  exit: Promise<number | null>;
}

/**
 * The real built `paygate` in a pseudo-terminal (util-linux `script`), so stdin and stdout are
 * terminals exactly as in a user's shell: tables, colour, prompts, confirmations.
 */
export function paygatePty(args: string[], opts: { env?: NodeJS.ProcessEnv; cols?: number } = {}): PtySession {
  const command = `stty cols ${opts.cols ?? 120} rows 40; exec ${[process.execPath, BIN, ...args].map(sh).join(' ')}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TERM: 'xterm-256color',
      PAYGATE_VAULT_KEY: TEST_VAULT_KEY,
      ...opts.env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  // Decode across chunk boundaries: a box-drawing character split between two reads stays whole.
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  const waiters: { test: (s: string) => boolean; resolve: () => void; reject: (e: Error) => void }[] = [];
  const check = (): void => {
    for (const w of [...waiters]) {
      if (w.test(out)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  child.stdout.on('data', (c: string) => {
    out += c;
    check();
  });
  child.stderr.on('data', (c: string) => {
    out += c;
    check();
  });
  const exit = new Promise<number | null>((resolve) => {
    child.on('close', (status) => {
      for (const w of waiters.splice(0))
        w.reject(new Error(`paygate exited before showing the expected text; output:\n${out}`));
      resolve(status);
    });
  });
  return {
    output: () => out,
    waitFor: (pattern) =>
      new Promise<void>((resolve, reject) => {
        const test = typeof pattern === 'string' ? (s: string) => s.includes(pattern) : (s: string) => pattern.test(s);
        waiters.push({ test, resolve, reject });
        check();
      }),
    type: (text) => {
      child.stdin.write(text);
    },
    exit,
  };
}

/** Run to the end without typing anything; the terminal's output and the exit status. */
export async function paygatePtyRun(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cols?: number } = {},
): Promise<{ status: number | null; output: string }> {
  const s = paygatePty(args, opts);
  const status = await s.exit;
  return { status, output: s.output() };
}
