import type { Ctx } from '../ctx.js';
import type { CopyProgress, CopySummary } from '../store/store.js';

export { CopyInterrupted } from '../store/store.js';

/**
 * The operator's whole-database operations (`paygate db backup`, `db copy`), so the CLI reaches
 * the store only through services. The engine decides what it can do: a backup is SQLite's
 * online copy (PostgreSQL answers 1001 pointing at pg_dump); a copy fills an empty database of
 * either engine, checked by row counts.
 */
export function backupDatabase(ctx: Ctx, file: string): Promise<{ pages: number }> {
  return ctx.store.backup(file);
}

/** `signal` stops the copy and undoes it (rejecting with CopyInterrupted): the target is left as it was. */
export function copyDatabase(
  ctx: Ctx,
  target: string,
  onProgress?: (p: CopyProgress) => void,
  signal?: AbortSignal,
): Promise<CopySummary> {
  return ctx.store.copyTo(target, onProgress, signal);
}
