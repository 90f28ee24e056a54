import type { PortalSessionRow } from '../store.js';
import { portalSessions } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';
import type { Db } from './db.js';

const SELECT = selectFrom(portalSessions);

export async function insertPortalSession(db: Db, row: PortalSessionRow): Promise<void> {
  await db.run(insertRow(portalSessions), row);
}

export function getPortalSession(db: Db, tokenHash: string): Promise<PortalSessionRow | undefined> {
  return db.get(`${SELECT} WHERE token_hash = @tokenHash`, { tokenHash });
}

/** Links that ran out before `cutoff` (the index on expires_at keeps this a range delete). */
export async function deletePortalSessionsBefore(db: Db, cutoff: number): Promise<void> {
  await db.run('DELETE FROM portal_sessions WHERE expires_at < @cutoff', { cutoff });
}

/** Count one card check on a link below `max`: false (nothing written) once it has had them all. */
export async function countPortalCardCheck(db: Db, tokenHash: string, max: number): Promise<boolean> {
  return (
    (await db.run(
      'UPDATE portal_sessions SET card_checks = card_checks + 1 WHERE token_hash = @tokenHash AND card_checks < @max',
      { tokenHash, max },
    )) === 1
  );
}
