import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { OpenAppOptions } from '../app.js';
import type { Ctx } from '../ctx.js';
import { isPaygateError, RESULT_CODES, StoreOpenError } from '../domain/errors.js';
import { VaultKeyError } from '../vault/crypto.js';
import { exposedDatabaseFiles, exposedFilesWarning } from './file-modes.js';
import { createOutput, loadTables, printError, type Output } from './output.js';
import { Declined, isPromptExit } from './prompts.js';
import { visible } from './visible.js';

/** A usage error: exit status 2 (SPEC §12). */
export class UsageError extends Error {}

/**
 * A long command stopped by SIGINT or SIGTERM after cleaning up: one line saying what it left,
 * exit status 128 + the signal's number (130, 143), as a shell reports a process the signal ended.
 */
export class Interrupted extends Error {
  constructor(
    message: string,
    readonly signal: NodeJS.Signals,
  ) {
    super(message);
  }
}

/**
 * paygate could not start as configured — the database cannot be opened, the port is taken, a
 * TLS file is missing: like a usage error, exit status 2, one line saying what to fix.
 */
export class StartupError extends Error {}

/**
 * A setting refused before the command could start (a PAYGATE_* variable, --tz, a pool size):
 * its result code is printed as any refusal's, but the exit is 2 like every start-up error, so a
 * service manager does not restart a process that cannot start (deploy/systemd/paygate.service).
 */
export class SettingError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const settingError = (e: unknown): unknown =>
  isPaygateError(e) && e.code === RESULT_CODES.INVALID_PARAM ? new SettingError(e.code, e.message) : e;

export interface GlobalOptions {
  db?: string;
  tz?: string;
  json?: boolean;
  color?: boolean;
  wide?: boolean;
}

export function globalsOf(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals() as GlobalOptions;
}

export function outputOf(cmd: Command): Output {
  const g = globalsOf(cmd);
  return createOutput({ json: Boolean(g.json), color: g.color !== false, wide: Boolean(g.wide) });
}

/** Open the app from the global options, run `fn`, always close the database. */
export async function withCtx<T>(
  cmd: Command,
  fn: (ctx: Ctx, out: Output) => T | Promise<T>,
  opts: OpenAppOptions = {},
): Promise<T> {
  const g = globalsOf(cmd);
  const out = outputOf(cmd);
  // loaded on first use: help, usage errors and completion never open the app
  const [{ openApp }, { isDatabaseUrl, loadConfig }] = await Promise.all([import('../app.js'), import('../config.js')]);
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({ db: g.db, tz: g.tz });
  } catch (e) {
    throw settingError(e);
  }
  const where = config.dbPath === ':memory:' || isDatabaseUrl(config.dbPath) ? undefined : resolve(config.dbPath);
  const isNew = where !== undefined && !existsSync(where);
  let ctx: Ctx;
  try {
    ctx = await openApp(config, opts);
  } catch (e) {
    if (isPaygateError(e) || !(e instanceof Error)) throw settingError(e);
    throw new StartupError(e.message);
  }
  // Run from the wrong directory, paygate would otherwise work on a new empty database silently.
  // stderr, so --json on stdout stays clean.
  if (isNew) process.stderr.write(`paygate: created a new database at ${where}\n`);
  if (where !== undefined) process.stderr.write(exposedFilesWarning(exposedDatabaseFiles(where)));
  if (!out.json) await loadTables();
  try {
    return await fn(ctx, out);
  } finally {
    await ctx.close();
  }
}

/**
 * The one error handler: a refused operation is exit 1 with `error <code>: <message>`, a usage
 * error exit 2; anything unexpected is 9999 without a stack trace (PAYGATE_DEBUG=1 shows it).
 */
export function handleError(e: unknown): never {
  // Ctrl-C at a prompt: the user left on purpose; nothing was written. 130 = 128 + SIGINT, as a shell reports it.
  if (isPromptExit(e)) {
    process.stderr.write('\n');
    process.exit(130);
  }
  if (e instanceof Interrupted) {
    process.stderr.write(`${visible(e.message)}\n`);
    process.exit(128 + (constants.signals[e.signal] ?? constants.signals.SIGINT));
  }
  if (e instanceof Declined) {
    process.stderr.write('not confirmed: nothing changed\n');
    process.exit(1);
  }
  if (e instanceof UsageError) {
    printError('usage', e.message);
    process.exit(2);
  }
  if (isPaygateError(e)) {
    printError(e.code, e.message);
    process.exit(1);
  }
  if (e instanceof SettingError) {
    printError(e.code, e.message);
    process.exit(2);
  }
  if (e instanceof StartupError || e instanceof StoreOpenError || e instanceof VaultKeyError) {
    printError('startup', e.message);
    process.exit(2);
  }
  if (process.env.PAYGATE_DEBUG) console.error(e);
  printError('9999', e instanceof Error ? e.message : 'internal error');
  process.exit(1);
}

/** Transaction statuses that leave the order unpaid: FAILED (declined included), EXPIRED, CANCELLED. */
const UNPAID = new Set(['300000', '300010', '300020']);
/** Not decided yet: ACCEPTED (the processor has not answered) and waiting for 3-D Secure. */
const UNDECIDED = new Set(['100000', '100040']);

/**
 * A charge's exit status, set after its result is printed (SPEC §12): 3 when it ended unpaid
 * (declined, failed, expired, cancelled), 4 while it is not decided yet (3-D Secure or the
 * processor still to answer), so a script's `paygate pay … && ship` never ships an unpaid order
 * and can tell "refused" from "ask again later". A checkout page waiting for its shopper (100050)
 * is what `pay --checkout` was asked to make: 0.
 */
export function exitForCharge(status: string | undefined): void {
  if (status === undefined) return;
  if (UNPAID.has(status)) process.exitCode = 3;
  else if (UNDECIDED.has(status)) process.exitCode = 4;
}

/** A tracking upload with failed entries, a declined plan change: exit 3 after the result is printed. */
export function exitThreeIf(failed: boolean): void {
  if (failed) process.exitCode = 3;
}

/** Wrap a commander action so every failure goes through handleError. */
export function action<A extends unknown[]>(fn: (...args: A) => unknown): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (e) {
      handleError(e);
    }
  };
}
