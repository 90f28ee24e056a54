import type { CouponRow } from '../store.js';
import { coupons } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';
import type { Db } from './db.js';

const SELECT = selectFrom(coupons);

export async function insertCoupon(db: Db, row: CouponRow): Promise<void> {
  await db.run(insertRow(coupons), row);
}

export function getCoupon(db: Db, merchantId: string, code: string): Promise<CouponRow | undefined> {
  return db.get(`${SELECT} WHERE merchant_id = @merchantId AND code = @code`, { merchantId, code });
}

export function listCoupons(db: Db, merchantId: string): Promise<CouponRow[]> {
  return db.all(
    `${SELECT} WHERE merchant_id = @merchantId ORDER BY created_at DESC, ${db.dialect.bytewise('id')} DESC`,
    {
      merchantId,
    },
  );
}

export async function setCouponStatus(db: Db, id: string, status: 'ACTIVE' | 'INACTIVE'): Promise<void> {
  await db.run('UPDATE coupons SET status = @status WHERE id = @id', { status, id });
}

/** The WHERE clause is the whole check (ACTIVE, not past redeemBy, below maxRedemptions): no overshoot. */
export async function reserveCouponRedemption(db: Db, id: string, now: number): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE coupons SET redemptions = redemptions + 1
       WHERE id = @id AND status = 'ACTIVE' AND (redeem_by IS NULL OR redeem_by >= @now)
         AND (max_redemptions IS NULL OR redemptions < max_redemptions)`,
      { id, now },
    )) === 1
  );
}

/** Give back a redemption whose subscription never started (its first charge failed or never ran). */
export async function releaseCouponRedemption(db: Db, id: string): Promise<void> {
  await db.run(`UPDATE coupons SET redemptions = ${db.dialect.greatest('redemptions - 1', '0')} WHERE id = @id`, {
    id,
  });
}
