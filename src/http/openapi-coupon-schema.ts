import { z } from 'zod';

/** A coupon as the API answers it (services/coupons.ts couponView); fields without a value are left out. */
export const couponSchema = z.object({
  couponCode: z.string().meta({ description: '1–50 of A-Za-z0-9_-, unique per merchant' }),
  merchantId: z.string(),
  percentOff: z.number().min(0.01).max(100).optional().meta({ description: 'Percent off, at most two decimals' }),
  amountOff: z.number().optional().meta({ description: 'Amount off each discounted charge, in USD' }),
  currency: z.literal('USD').optional().meta({ description: 'With amountOff' }),
  duration: z.enum(['ONCE', 'REPEATING', 'FOREVER']).meta({
    description:
      'ONCE: the first charge after it is taken; REPEATING: the next `cycles` charges; FOREVER: every charge',
  }),
  cycles: z.number().int().min(1).max(120).optional().meta({ description: 'REPEATING only' }),
  redeemBy: z
    .string()
    .optional()
    .meta({ description: 'No subscription takes it after this time (yyyy-MM-dd HH:mm:ss)' }),
  maxRedemptions: z.number().int().min(1).optional(),
  redemptions: z.number().int().min(0).meta({ description: 'Subscriptions that took it' }),
  planIds: z.array(z.string()).meta({ description: 'The plans it is for; empty for every plan of the merchant' }),
  status: z.enum(['ACTIVE', 'INACTIVE']),
  createTime: z.string(),
});
