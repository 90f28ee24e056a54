import type { Command } from 'commander';
import { openApp, type Ctx, type OpenAppOptions } from '../app.js';
import { loadConfig } from '../config.js';
import { isPaygateError } from '../domain/errors.js';
import { StoreOpenError } from '../store/client.js';
import { VaultKeyError } from '../vault/crypto.js';
import { createOutput, printError, type Output } from './output.js';

/** A usage error: exit status 2 (SPEC §12). */
export class UsageError extends Error {}

export interface GlobalOptions {
  db?: string;
  tz?: string;
  json?: boolean;
  color?: boolean;
}

export function globalsOf(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals() as GlobalOptions;
}

export function outputOf(cmd: Command): Output {
  const g = globalsOf(cmd);
  return createOutput({ json: Boolean(g.json), color: g.color !== false });
}

/** Open the app from the global options, run `fn`, always close the database. */
export async function withCtx<T>(
  cmd: Command,
  fn: (ctx: Ctx, out: Output) => T | Promise<T>,
  opts: OpenAppOptions = {},
): Promise<T> {
  const g = globalsOf(cmd);
  const out = outputOf(cmd);
  const ctx = openApp(loadConfig({ db: g.db, tz: g.tz }), opts);
  try {
    return await fn(ctx, out);
  } finally {
    ctx.close();
  }
}

/**
 * The one error handler: a refused operation is exit 1 with `error <code>: <message>`, a usage
 * error exit 2; anything unexpected is 9999 without a stack trace (PAYGATE_DEBUG=1 shows it).
 */
export function handleError(e: unknown): never {
  if (e instanceof UsageError) {
    printError('usage', e.message);
    process.exit(2);
  }
  if (isPaygateError(e)) {
    printError(e.code, e.message);
    process.exit(1);
  }
  // The database cannot be used with this key: a start-up failure the operator fixes (exit 2).
  if (e instanceof VaultKeyError) {
    printError('usage', `vault key: ${e.message}`);
    process.exit(2);
  }
  if (e instanceof StoreOpenError) {
    printError('1001', `db: ${e.message}`);
    process.exit(1);
  }
  if (process.env.PAYGATE_DEBUG) console.error(e);
  printError('9999', e instanceof Error ? e.message : 'internal error');
  process.exit(1);
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
