/**
 * Moving a merchant's document sequence (`merchant update --invoice-next N`), one statement both
 * engines run: the write happens only while the sequence is not past N, so a number issued by
 * another unit of work meanwhile makes the move fail instead of being handed out again.
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
