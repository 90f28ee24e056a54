import type { CardRow } from '../store.js';
import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';
import { cards } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';

/** Vaulted cards (SPEC §10): PAN only encrypted; CVV has no column at all. */
export function insertCard(sqlite: Sqlite, row: CardRow): void {
  prepared(sqlite, insertRow(cards)).run(row);
}

/** A Stripe card learns its Customer and PaymentMethod ids (and Stripe's display fields) after the first charge. */
export function setStripeCard(
  sqlite: Sqlite,
  id: string,
  c: { customerId: string; paymentMethodId: string; brand: string; last4: string; expMonth: number; expYear: number },
): void {
  prepared(
    sqlite,
    `UPDATE cards SET stripe_customer_id = @customerId, stripe_payment_method_id = @paymentMethodId, brand = @brand, last4 = @last4,
       exp_month = @expMonth, exp_year = @expYear WHERE id = @id AND channel = 'stripe'`,
  ).run({ id, ...c });
}

/** Card data of an ended subscription is deleted (SPEC §6); subscriptions.card_id is set null first. */
export function deleteCard(sqlite: Sqlite, id: string): void {
  prepared(sqlite, 'UPDATE subscriptions SET card_id = NULL WHERE card_id = ?').run(id);
  prepared(sqlite, 'DELETE FROM cards WHERE id = ?').run(id);
}

/** A vaulted card (its PAN still sealed). */
export function getCard(sqlite: Sqlite, id: string): CardRow | undefined {
  return prepared(sqlite, `${selectFrom(cards)} WHERE id = ?`).get(id) as CardRow | undefined;
}
