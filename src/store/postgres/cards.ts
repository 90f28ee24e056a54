import type { CardRow } from '../store.js';
import { get, run, type Conn } from './query.js';

/** Vaulted cards: PAN only encrypted; CVV has no column at all. */
export async function insertCard(db: Conn, row: CardRow): Promise<void> {
  await run(
    db,
    `INSERT INTO cards (id, merchant_id, pan_enc, channel, stripe_customer_id, stripe_payment_method_id, bin, last4, brand, exp_month, exp_year, holder_name, created_at)
     VALUES (@id, @merchantId, @panEnc, @channel, @stripeCustomerId, @stripePaymentMethodId, @bin, @last4, @brand, @expMonth, @expYear, @holderName, @createdAt)`,
    row,
  );
}

/** Card data of an ended subscription is deleted; subscriptions.card_id is set null first. */
export async function deleteCard(db: Conn, id: string): Promise<void> {
  await run(db, 'UPDATE subscriptions SET card_id = NULL WHERE card_id = @id', { id });
  await run(db, 'DELETE FROM cards WHERE id = @id', { id });
}

/** A vaulted card (its PAN still sealed). */
export function getCard(db: Conn, id: string): Promise<CardRow | undefined> {
  return get(
    db,
    `SELECT id, merchant_id AS "merchantId", pan_enc AS "panEnc", channel, stripe_customer_id AS "stripeCustomerId",
       stripe_payment_method_id AS "stripePaymentMethodId", bin, last4, brand, exp_month AS "expMonth", exp_year AS "expYear",
       holder_name AS "holderName", created_at AS "createdAt" FROM cards WHERE id = @id`,
    { id },
  );
}

/** A Stripe card learns its Customer and PaymentMethod ids (and Stripe's display fields) after the first charge. */
export async function setStripeCard(
  db: Conn,
  id: string,
  c: { customerId: string; paymentMethodId: string; brand: string; last4: string; expMonth: number; expYear: number },
): Promise<void> {
  await run(
    db,
    `UPDATE cards SET stripe_customer_id = @customerId, stripe_payment_method_id = @paymentMethodId, brand = @brand, last4 = @last4,
       exp_month = @expMonth, exp_year = @expYear WHERE id = @id AND channel = 'stripe'`,
    { id, ...c },
  );
}
