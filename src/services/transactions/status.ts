/** Transaction status codes (SPEC §5) and their names: plain values, so the CLI's output can name them without loading the services. */
export const STATUS = {
  ACCEPTED: 100000,
  REQUIRES_3DS: 100040,
  AWAITING_CHECKOUT: 100050,
  SUCCEEDED: 200000,
  FAILED: 300000,
  EXPIRED: 300010,
  CANCELLED: 300020,
  PARTIALLY_REFUNDED: 400010,
  REFUNDED: 400000,
} as const;

export const STATUS_NAMES: Record<number, string> = Object.fromEntries(Object.entries(STATUS).map(([k, v]) => [v, k]));
