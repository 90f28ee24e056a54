import type { Ctx } from '../../ctx.js';
import { documentToken } from '../../domain/ids.js';
import type { CreditNoteRow } from '../../store/store.js';

/** A credit note that has its hosted page's token. */
export type LinkedCreditNote = CreditNoteRow & { token: string };

const linked = (r: CreditNoteRow): r is LinkedCreditNote => r.token !== null;

/**
 * Credit notes with their page's token. Every credit note issued now has one; one issued before
 * credit notes had pages gets it here, the first time its link is shown (a migration cannot draw
 * an unguessable token), in one unit of work for all of them. The write is conditional, so
 * readers racing on another instance agree on whichever token was written first.
 */
export async function withLinks(ctx: Ctx, rows: readonly CreditNoteRow[]): Promise<LinkedCreditNote[]> {
  const missing = rows.filter((r) => !linked(r));
  if (missing.length === 0) return rows.filter(linked);
  await ctx.store.transaction(async (tx) => {
    for (const r of missing) await tx.giveCreditNoteToken(r.id, documentToken());
  });
  const out: LinkedCreditNote[] = [];
  for (const r of rows) {
    const row = linked(r) ? r : await ctx.store.getCreditNoteByRefund(r.refundId);
    if (!row || !linked(row)) throw new Error(`credit note ${r.number} has no link after it was given one`);
    out.push(row);
  }
  return out;
}
