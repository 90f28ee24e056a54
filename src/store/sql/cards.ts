import type { CardRow, StripeCardIds } from '../store.js';
import { cards } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';
import type { Db } from './db.js';

/** Vaulted cards (SPEC §10): PAN only encrypted; CVV has no column at all. */
export async function insertCard(db: Db, row: CardRow): Promise<void> {
  await db.run(insertRow(cards), row);
}

/** A Stripe card learns its Customer and PaymentMethod ids (and Stripe's display fields) after the first charge. */
export async function setStripeCard(db: Db, id: string, c: StripeCardIds): Promise<void> {
  await db.run(
    `UPDATE cards SET stripe_customer_id = @customerId, stripe_payment_method_id = @paymentMethodId, brand = @brand, last4 = @last4,
       exp_month = @expMonth, exp_year = @expYear WHERE id = @id AND channel = 'stripe'`,
    { id, ...c },
  );
}

/** Card data of an ended subscription is deleted (SPEC §6); subscriptions.card_id is set null first. */
export async function deleteCard(db: Db, id: string): Promise<void> {
  await db.run('UPDATE subscriptions SET card_id = NULL WHERE card_id = @id', { id });
  await db.run('DELETE FROM cards WHERE id = @id', { id });
}

/** A vaulted card (its PAN still sealed). */
export function getCard(db: Db, id: string): Promise<CardRow | undefined> {
  return db.get(`${selectFrom(cards)} WHERE id = @id`, { id });
}
