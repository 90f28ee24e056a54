import type { CouponRow } from '../store.js';
import { coupons } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';
import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';

const SELECT = selectFrom(coupons);

export function insertCoupon(sqlite: Sqlite, row: CouponRow): void {
  prepared(sqlite, insertRow(coupons)).run(row);
}

export function getCoupon(sqlite: Sqlite, merchantId: string, code: string): CouponRow | undefined {
  return prepared(sqlite, `${SELECT} WHERE merchant_id = ? AND code = ?`).get(merchantId, code) as
    | CouponRow
    | undefined;
}

export function listCoupons(sqlite: Sqlite, merchantId: string): CouponRow[] {
  return prepared(sqlite, `${SELECT} WHERE merchant_id = ? ORDER BY created_at DESC, id DESC`).all(
    merchantId,
  ) as CouponRow[];
}

export function setCouponStatus(sqlite: Sqlite, id: string, status: 'ACTIVE' | 'INACTIVE'): void {
  prepared(sqlite, 'UPDATE coupons SET status = ? WHERE id = ?').run(status, id);
}

/** The WHERE clause is the whole check (ACTIVE, not past redeemBy, below maxRedemptions): no overshoot. */
export function reserveCouponRedemption(sqlite: Sqlite, id: string, now: number): boolean {
  return (
    prepared(
      sqlite,
      `UPDATE coupons SET redemptions = redemptions + 1
       WHERE id = ? AND status = 'ACTIVE' AND (redeem_by IS NULL OR redeem_by >= ?)
         AND (max_redemptions IS NULL OR redemptions < max_redemptions)`,
    ).run(id, now).changes === 1
  );
}
