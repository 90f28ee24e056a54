/**
 * The outbox claim protocol's rules (the statements live in the store): a claim is a conditional
 * write of a lease checked by its result — no process-local lock — so any number of deliverers
 * (serve instances, renew runs) on one database never send the same attempt twice.
 */

/** Longer than the request timeout with room to spare; a crashed deliverer's claims free up after it. */
export const DELIVERY_LEASE_MS = 2 * 60_000;

/** Why an event with nowhere to go is DEAD; the same words deliverOne uses for a single event. */
export const NO_TARGET_ERROR = 'no notifyUrl: neither the payment/subscription nor the merchant has one';
