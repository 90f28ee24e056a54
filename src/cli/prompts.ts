import { invalidParam } from '../domain/errors.js';
import type { Output } from './output.js';
import { UsageError } from './shell.js';
import type { Check } from './validate.js';

export interface MissingField {
  /** The flag as the user types it, e.g. `--cycle-type`. */
  flag: string;
  message: string;
  choices?: readonly string[];
  secret?: boolean;
  default?: string;
  /** Refuses a typed value at its prompt, in plain words, before the next question. */
  check?: Check;
}

/**
 * Fill in missing required values: prompted on a terminal, a usage error naming every missing
 * flag otherwise (SPEC §12: no prompts off a terminal or with --json).
 */
export async function askMissing(out: Output, fields: readonly MissingField[]): Promise<Record<string, string>> {
  if (fields.length === 0) return {};
  if (!out.interactive) {
    throw new UsageError(
      `missing required option${fields.length > 1 ? 's' : ''}: ${fields.map((f) => f.flag).join(', ')}`,
    );
  }
  // Loaded only when a prompt is shown: it costs start-up time every other command would pay.
  const { input, password, select } = await import('@inquirer/prompts');
  const answers: Record<string, string> = {};
  for (const f of fields) {
    const validate = (v: string): string | true => {
      if (!f.check) return v.trim() === '' ? 'a value is required' : true;
      return f.check(v) ?? true;
    };
    if (f.choices) {
      answers[f.flag] = await select({ message: f.message, choices: f.choices.map((c) => ({ value: c, name: c })) });
    } else if (f.secret) {
      answers[f.flag] = await password({ message: f.message, mask: false, validate });
    } else {
      answers[f.flag] = await input({
        message: f.message,
        required: true,
        validate,
        ...(f.default ? { default: f.default } : {}),
      });
    }
  }
  return answers;
}

/**
 * A value given as a flag gets the same check as at the prompt, before anything is asked: a bad
 * `--amount` is refused (1001 naming the field) rather than after the card has been typed.
 */
export function checkGiven(field: string, value: string | undefined, check: Check): void {
  if (value === undefined) return;
  const problem = check(value);
  if (problem) throw invalidParam(field, problem);
}

/** Ctrl-C (or Ctrl-D) at a prompt: the prompt library's way of saying the user left. */
export function isPromptExit(e: unknown): boolean {
  return e instanceof Error && (e.name === 'ExitPromptError' || e.name === 'AbortPromptError');
}

/** The user answered no to a confirmation: nothing was changed. */
export class Declined extends Error {}

/**
 * Ask before what cannot be undone, on a terminal only: off a terminal (or with --json) nothing
 * is ever asked (scripts and cron must not hang), and `--yes` skips the question.
 */
export async function confirmIrreversible(
  out: Output,
  yes: boolean | undefined,
  question: () => string | Promise<string>,
): Promise<void> {
  if (yes || !out.interactive) return;
  const message = await question();
  const { confirm } = await import('@inquirer/prompts');
  if (!(await confirm({ message, default: false }))) throw new Declined('nothing changed');
}
