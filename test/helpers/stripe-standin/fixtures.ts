import { readFileSync } from 'node:fs';

/**
 * Stripe's published example objects (stripe/openapi `fixtures3.json`, MIT, LICENSE beside it).
 * Every object the stand-in answers starts as a deep copy of one of these, so the official
 * client parses exactly the shape the real API sends; builders change only the scenario's fields.
 */
export type StripeJson = Record<string, unknown>;

const resources = (
  JSON.parse(readFileSync(new URL('./fixtures3.json', import.meta.url), 'utf8')) as {
    resources: Record<string, StripeJson>;
  }
).resources;

export function fixture(
  name: 'payment_intent' | 'payment_method' | 'customer' | 'charge' | 'refund' | 'balance' | 'event' | 'setup_intent',
): StripeJson {
  const base = resources[name];
  if (!base) throw new Error(`stripe-standin: fixtures3.json has no ${name}`);
  return structuredClone(base);
}
