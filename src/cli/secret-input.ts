import { readFileSync } from 'node:fs';
import type { Output } from './output.js';
import { UsageError } from './shell.js';

/**
 * A secret given to the CLI without putting it on the command line, where it would be seen by
 * other users (`ps`, /proc/PID/cmdline) and kept in shell history:
 *  - `--flag -`: read from stdin (the first line; a terminal gets the hidden prompt instead);
 *  - `--flag` with no value: from the environment variable, else a hidden prompt on a terminal;
 *  - `--flag VALUE` still works, and is documented as visible to other users.
 */
export interface SecretFlag {
  /** As typed: `--stripe-secret-key`. */
  flag: string;
  /** The environment variable read when the flag is given without a value. */
  env: string;
  /** The prompt's question. */
  message: string;
}

/** What commander gives for an option declared `--flag [value]`: absent, present without value, or the value. */
export type FlagValue = string | boolean | undefined;

function readStdin(flag: string): string {
  let text: string;
  try {
    text = readFileSync(0, 'utf8');
  } catch {
    throw new UsageError(`${flag} -: stdin could not be read`);
  }
  const value = (text.split(/\r?\n/, 1)[0] ?? '').trim();
  if (value === '')
    throw new UsageError(`${flag} -: nothing on stdin (pipe the value in, e.g. from a file or a password manager)`);
  return value;
}

async function ask(f: SecretFlag): Promise<string> {
  // Loaded only when a prompt is shown: it costs start-up time every other command would pay.
  const { password } = await import('@inquirer/prompts');
  const value = await password({
    message: f.message,
    mask: false,
    validate: (v) => (v.trim() === '' ? 'a value is required' : true),
  });
  return value.trim();
}

/** Each secret flag's value, read from where the user said; undefined for a flag not given. */
export async function readSecrets(
  out: Output,
  given: Array<{ flag: SecretFlag; value: FlagValue }>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Array<string | undefined>> {
  const fromStdin = given.filter((g) => g.value === '-');
  if (fromStdin.length > 1 && !out.interactive) {
    throw new UsageError(
      `only one value can be read from stdin: give ${fromStdin.map((g) => g.flag.flag).join(' or ')} through its environment variable instead`,
    );
  }
  const values: Array<string | undefined> = [];
  for (const { flag, value } of given) {
    if (value === undefined || value === false) values.push(undefined);
    else if (typeof value === 'string' && value !== '-') values.push(value);
    else if (value === '-') values.push(out.interactive ? await ask(flag) : readStdin(flag.flag));
    else {
      const fromEnv = env[flag.env]?.trim();
      if (fromEnv) values.push(fromEnv);
      else if (out.interactive) values.push(await ask(flag));
      else {
        throw new UsageError(
          `${flag.flag} needs a value: set ${flag.env}, give \`${flag.flag} -\` and pipe it on stdin, or run on a terminal to be asked`,
        );
      }
    }
  }
  return values;
}
