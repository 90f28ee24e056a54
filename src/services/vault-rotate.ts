import type { Ctx } from '../app.js';
import { invalidParam, PaygateError, RESULT_CODES } from '../domain/errors.js';
import { countSealed, deleteMeta, getMeta, META, SEALED_COLUMNS, sealedBatch, setMeta, updateSealed, claimMeta } from '../store/vault.js';
import { vaultFromKey, type Vault } from '../vault/crypto.js';
import { keyCheckValue, PINNED_PURPOSES, sameCheckValue, sealPinned } from '../vault/key-check.js';

export interface RotationProgress {
  done: number;
  total: number;
}

export interface RotationSummary {
  /** Values re-encrypted by this run (a resumed run counts only what was left). */
  reencrypted: number;
  /** Values found already under the new key (done by an earlier, interrupted run). */
  alreadyDone: number;
}

/** Rows per write transaction: short enough never to hold the write lock long. */
const BATCH = 500;

/**
 * Re-encrypt every sealed value (cards, merchant secrets) under a new vault key, resumably:
 *  1. the target is recorded first (its key check value): from then on only a rotation to that
 *     same key can open the database, so nothing writes values under the old key meanwhile;
 *  2. values are re-encrypted batch by batch, each batch one transaction; a value that already
 *     opens under the new key is left alone, so a rerun after a crash carries on where it stopped;
 *  3. one last transaction switches the key check value and the pinned derived keys (request
 *     fingerprints stay valid: they are kept, sealed under the new key) and ends the rotation.
 * Every other paygate process must be stopped meanwhile (docs/security.md).
 */
export function rotateVaultKey(ctx: Ctx, newKey: Buffer, onProgress?: (p: RotationProgress) => void): RotationSummary {
  const { sqlite } = ctx;
  const next = vaultFromKey(newKey);
  const nextKcv = keyCheckValue(next);
  const currentKcv = getMeta(sqlite, META.keyCheck);
  if (currentKcv !== undefined && sameCheckValue(currentKcv, nextKcv)) throw invalidParam('new key', 'is already this database’s vault key');
  const target = claimMeta(sqlite, META.rotatingTo, nextKcv);
  if (!sameCheckValue(target, nextKcv)) {
    throw new PaygateError(RESULT_CODES.NOT_ALLOWED, 'a rotation to another new key was started and has not finished: run it again with that key');
  }
  // The derived keys to keep, as the current vault answers them (pinned ones included), sealed
  // under the new key before any value moves, so the final switch needs nothing from the old key.
  if (getMeta(sqlite, META.pinnedNext) === undefined) {
    setMeta(sqlite, META.pinnedNext, sealPinned(new Map(PINNED_PURPOSES.map((p) => [p, ctx.vault.derive(p)])), next));
  }

  const summary: RotationSummary = { reencrypted: 0, alreadyDone: 0 };
  const total = countSealed(sqlite);
  let done = 0;
  for (const col of SEALED_COLUMNS) {
    let after = '';
    for (;;) {
      const rows = sealedBatch(sqlite, col, after, BATCH);
      if (rows.length === 0) break;
      sqlite
        .transaction(() => {
          for (const row of rows) {
            if (opens(next, row.sealed)) {
              summary.alreadyDone++;
              continue;
            }
            updateSealed(sqlite, col, row.id, next.encrypt(ctx.vault.decrypt(row.sealed)));
            summary.reencrypted++;
          }
        })
        .immediate();
      done += rows.length;
      after = rows[rows.length - 1]?.id ?? after;
      onProgress?.({ done, total });
    }
  }

  sqlite
    .transaction(() => {
      const pinnedNext = getMeta(sqlite, META.pinnedNext);
      if (pinnedNext === undefined) throw new Error('vault rotation: the derived keys to keep are missing');
      setMeta(sqlite, META.pinned, pinnedNext);
      setMeta(sqlite, META.keyCheck, nextKcv);
      deleteMeta(sqlite, META.pinnedNext);
      deleteMeta(sqlite, META.rotatingTo);
    })
    .immediate();
  // Old ciphertexts linger in free pages and the WAL until overwritten: checkpoint and vacuum so
  // the file no longer holds values a leaked old key would open.
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  sqlite.exec('VACUUM');
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  return summary;
}

function opens(vault: Vault, sealed: string): boolean {
  try {
    vault.decrypt(sealed);
    return true;
  } catch {
    return false;
  }
}
