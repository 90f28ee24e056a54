import type { Ctx } from '../../ctx.js';

/** The hosted invoice page, and its PDF beside it (SPEC §17). */
export const invoiceUrl = (ctx: Ctx, token: string): string => `${ctx.config.publicUrl}/invoice/${token}`;
export const invoicePdfUrl = (ctx: Ctx, token: string): string => `${ctx.config.publicUrl}/invoice/${token}/pdf`;

/** A credit note's hosted page and PDF, drawn as the invoice's are. */
export const creditNoteUrl = (ctx: Ctx, token: string): string => `${ctx.config.publicUrl}/credit-note/${token}`;
export const creditNotePdfUrl = (ctx: Ctx, token: string): string => `${ctx.config.publicUrl}/credit-note/${token}/pdf`;
