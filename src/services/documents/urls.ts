import type { Ctx } from '../../ctx.js';

/** The hosted invoice page, and its PDF beside it (SPEC §17). */
export const invoiceUrl = (ctx: Ctx, token: string): string => `${ctx.config.publicUrl}/invoice/${token}`;
export const invoicePdfUrl = (ctx: Ctx, token: string): string => `${ctx.config.publicUrl}/invoice/${token}/pdf`;
