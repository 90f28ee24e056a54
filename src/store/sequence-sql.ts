/**
 * A merchant's document sequences (SPEC §17), in statements both engines run.
 *
 * Taking a number is one UPDATE … RETURNING of the merchant's row inside the unit of work that
 * issues the document: on PostgreSQL the row stays locked until that unit commits, so concurrent
 * issuers — in any process — queue for it; SQLite has one writer at a time. A unit that rolls
 * back takes its increment with it. So no number is skipped or used twice.
 *
 * Moving a sequence (`merchant update --invoice-next N`) writes only while the sequence is not
 * past N, so a number issued meanwhile makes the move fail instead of being handed out again.
 */
export type SequenceColumn = 'invoiceNext' | 'creditNoteNext';

const COLUMNS: Record<SequenceColumn, string> = { invoiceNext: 'invoice_next', creditNoteNext: 'credit_note_next' };

export function moveSequenceSql(which: SequenceColumn): { move: string; current: string } {
  const col = COLUMNS[which];
  return {
    move: `UPDATE merchants SET ${col} = @requested WHERE id = @id AND ${col} <= @requested`,
    current: `SELECT ${col} AS "next" FROM merchants WHERE id = @id`,
  };
}

export interface TakenNumber {
  sequence: number;
  prefix: string;
}

export function takeSequenceSql(which: SequenceColumn): string {
  const col = COLUMNS[which];
  return `UPDATE merchants SET ${col} = ${col} + 1 WHERE id = @id RETURNING ${col} - 1 AS "sequence", invoice_prefix AS "prefix"`;
}
