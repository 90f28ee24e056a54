import type { CouponRow } from '../store.js';
import { coupons } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';
import { all, type Conn, get, run } from './query.js';

const SELECT = selectFrom(coupons);

export async function insertCoupon(db: Conn, row: CouponRow): Promise<void> {
  await run(db, insertRow(coupons), row);
}

export function getCoupon(db: Conn, merchantId: string, code: string): Promise<CouponRow | undefined> {
  return get(db, `${SELECT} WHERE merchant_id = @merchantId AND code = @code`, { merchantId, code });
}

export function listCoupons(db: Conn, merchantId: string): Promise<CouponRow[]> {
  return all(db, `${SELECT} WHERE merchant_id = @merchantId ORDER BY created_at DESC, id COLLATE "C" DESC`, {
    merchantId,
  });
}

export async function setCouponStatus(db: Conn, id: string, status: 'ACTIVE' | 'INACTIVE'): Promise<void> {
  await run(db, 'UPDATE coupons SET status = @status WHERE id = @id', { id, status });
}

/**
 * The WHERE clause is the whole check. Under READ COMMITTED a concurrent caller waits for the row
 * lock, then PostgreSQL re-evaluates the WHERE against the committed row: no instance overshoots.
 */
export async function reserveCouponRedemption(db: Conn, id: string, now: number): Promise<boolean> {
  return (
    (await run(
      db,
      `UPDATE coupons SET redemptions = redemptions + 1
       WHERE id = @id AND status = 'ACTIVE' AND (redeem_by IS NULL OR redeem_by >= @now)
         AND (max_redemptions IS NULL OR redemptions < max_redemptions)`,
      { id, now },
    )) === 1
  );
}
