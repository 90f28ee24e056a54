import type { CardRow } from '../store.js';
import { cards } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';
import { get, run, type Conn } from './query.js';

/** Vaulted cards: PAN only encrypted; CVV has no column at all. */
export async function insertCard(db: Conn, row: CardRow): Promise<void> {
  await run(db, insertRow(cards), row);
}

/** Card data of an ended subscription is deleted; subscriptions.card_id is set null first. */
export async function deleteCard(db: Conn, id: string): Promise<void> {
  await run(db, 'UPDATE subscriptions SET card_id = NULL WHERE card_id = @id', { id });
  await run(db, 'DELETE FROM cards WHERE id = @id', { id });
}

/** A vaulted card (its PAN still sealed). */
export function getCard(db: Conn, id: string): Promise<CardRow | undefined> {
  return get(db, `${selectFrom(cards)} WHERE id = @id`, { id });
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
