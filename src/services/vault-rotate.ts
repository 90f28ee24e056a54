import type { Ctx } from '../ctx.js';
import { invalidParam, PaygateError, RESULT_CODES } from '../domain/errors.js';
import { META, SEALED_COLUMNS } from '../store/store.js';
import { vaultFromKey, type Vault } from '../vault/crypto.js';
import { keyCheckValue, retiredAfterRotation, sameCheckValue, sealRetired } from '../vault/key-check.js';
import { PORTAL_TTL_MS } from './portal/session.js';
import { PAGE_TTL_MS } from './transactions/outcome.js';

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

/** How many sealed values a rotation would re-encrypt (for the operator's confirmation). */
export function countSealedValues(ctx: Ctx): Promise<number> {
  return ctx.store.countSealed();
}

/**
 * How long a form rendered before a rotation may still be posted: the longest a hosted page stays
 * open for its token (the portal's hour; checkout and 3DS pages end after 30 minutes). Every
 * process is stopped during a rotation, so every such form is older than its start.
 */
const FORM_LIFETIME_MS = Math.max(PAGE_TTL_MS, PORTAL_TTL_MS);

/** Rows per write transaction: short enough never to hold the write lock long. */
const BATCH = 500;

/**
 * Re-encrypt every sealed value (cards, merchant secrets) under a new vault key, resumably:
 *  1. the target is recorded first (its key check value): from then on only a rotation to that
 *     same key can open the database, so nothing writes values under the old key meanwhile;
 *  2. values are re-encrypted batch by batch, each batch one transaction; a value that already
 *     opens under the new key is left alone, so a rerun after a crash carries on where it stopped;
 *  3. one last transaction switches the key check value and the retired derived keys and ends the
 *     rotation. From then on fingerprints and CSRF tokens are made under keys derived from the new
 *     key, so a leaked old key does not open what is written after; the old derived keys are kept
 *     (sealed under the new key, vault/key-check.ts) only to recognise what was written before:
 *     a repeat of an earlier request, a form rendered before the rotation within its lifetime.
 * Every other paygate process must be stopped meanwhile (docs/security.md).
 */
export async function rotateVaultKey(
  ctx: Ctx,
  newKey: Buffer,
  onProgress?: (p: RotationProgress) => void,
): Promise<RotationSummary> {
  const { store } = ctx;
  const next = vaultFromKey(newKey);
  const nextKcv = keyCheckValue(next);
  const currentKcv = await store.getMeta(META.keyCheck);
  if (currentKcv !== undefined && sameCheckValue(currentKcv, nextKcv))
    throw invalidParam('new key', 'is already this database’s vault key');
  const target = await store.transaction((tx) => tx.claimMeta(META.rotatingTo, nextKcv));
  if (!sameCheckValue(target, nextKcv)) {
    throw new PaygateError(
      RESULT_CODES.NOT_ALLOWED,
      'a rotation to another new key was started and has not finished: run it again with that key',
    );
  }
  // The derived keys to keep (the old key's and those it kept itself), sealed under the new key
  // before any value moves, so the final switch needs nothing from the old key. A resumed run
  // keeps what the first run sealed: the CSRF key's time runs from the first start.
  if ((await store.getMeta(META.pinnedNext)) === undefined) {
    const kept = sealRetired(retiredAfterRotation(ctx.vault, ctx.clock.wall(), FORM_LIFETIME_MS), next);
    await store.transaction((tx) => tx.setMeta(META.pinnedNext, kept));
  }

  const summary: RotationSummary = { reencrypted: 0, alreadyDone: 0 };
  const total = await store.countSealed();
  let done = 0;
  for (const col of SEALED_COLUMNS) {
    let after = '';
    for (;;) {
      const rows = await store.sealedBatch(col, after, BATCH);
      if (rows.length === 0) break;
      // Encrypted before the unit of work, which may run more than once and must stay quick.
      const moves = rows
        .filter((row) => !opens(next, row.sealed))
        .map((row) => ({ id: row.id, sealed: next.encrypt(ctx.vault.decrypt(row.sealed)) }));
      await store.transaction(async (tx) => {
        for (const m of moves) await tx.updateSealed(col, m.id, m.sealed);
      });
      summary.alreadyDone += rows.length - moves.length;
      summary.reencrypted += moves.length;
      done += rows.length;
      after = rows[rows.length - 1]?.id ?? after;
      onProgress?.({ done, total });
    }
  }

  await store.transaction(async (tx) => {
    const pinnedNext = await tx.getMeta(META.pinnedNext);
    if (pinnedNext === undefined) throw new Error('vault rotation: the derived keys to keep are missing');
    await tx.setMeta(META.pinned, pinnedNext);
    await tx.setMeta(META.keyCheck, nextKcv);
    await tx.deleteMeta(META.pinnedNext);
    await tx.deleteMeta(META.rotatingTo);
  });
  // Old ciphertexts linger in free pages and the log until overwritten: compact so the file no
  // longer holds values a leaked old key would open.
  await store.compact();
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
