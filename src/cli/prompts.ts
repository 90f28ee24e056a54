import type { Output } from './output.js';
import { UsageError } from './shell.js';

export interface MissingField {
  /** The flag as the user types it, e.g. `--cycle-type`. */
  flag: string;
  message: string;
  choices?: readonly string[];
  secret?: boolean;
  default?: string;
}

/**
 * Fill in missing required values: prompted on a terminal, a usage error naming every missing
 * flag otherwise (SPEC §12: no prompts off a terminal or with --json).
 */
export async function askMissing(out: Output, fields: readonly MissingField[]): Promise<Record<string, string>> {
  if (fields.length === 0) return {};
  if (!out.interactive) {
    throw new UsageError(`missing required option${fields.length > 1 ? 's' : ''}: ${fields.map((f) => f.flag).join(', ')}`);
  }
  // Loaded only when a prompt is shown: it costs start-up time every other command would pay.
  const { input, password, select } = await import('@inquirer/prompts');
  const answers: Record<string, string> = {};
  for (const f of fields) {
    if (f.choices) {
      answers[f.flag] = await select({ message: f.message, choices: f.choices.map((c) => ({ value: c, name: c })) });
    } else if (f.secret) {
      answers[f.flag] = await password({ message: f.message, mask: false });
    } else {
      answers[f.flag] = await input({ message: f.message, required: true, ...(f.default ? { default: f.default } : {}) });
    }
  }
  return answers;
}
