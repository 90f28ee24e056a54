/**
 * The one error type of paygate. `code` is the SPEC §3 rtn_code; the HTTP layer maps it to a
 * status in one switch (http/envelope.ts) and the CLI to an exit status in one handler.
 */
export const RESULT_CODES = {
  SUCCESS: '0000',
  MALFORMED: '1000',
  INVALID_PARAM: '1001',
  BAD_SIGNATURE: '1002',
  UNKNOWN_MERCHANT: '1003',
  RATE_LIMITED: '1004',
  DUPLICATE_RELATION: '1005',
  REQUEST_CONFLICT: '1006',
  NOT_FOUND: '1007',
  NOT_ALLOWED: '1008',
  PLAN_UNAVAILABLE: '1009',
  REFUND_EXCEEDS: '1010',
  CARD_REJECTED: '1011',
  COUPON_NOT_APPLICABLE: '1012',
  INTERNAL: '9999',
} as const;

export type ResultCode = (typeof RESULT_CODES)[keyof typeof RESULT_CODES];

export class PaygateError extends Error {
  readonly code: ResultCode;
  readonly field: string | undefined;

  constructor(code: ResultCode, message: string, field?: string) {
    super(message);
    this.name = 'PaygateError';
    this.code = code;
    this.field = field;
  }
}

export const invalidParam = (field: string, reason: string): PaygateError =>
  new PaygateError(RESULT_CODES.INVALID_PARAM, `${field}: ${reason}`, field);

export const notFound = (what: string): PaygateError => new PaygateError(RESULT_CODES.NOT_FOUND, `${what} not found`);

export const notAllowed = (message: string): PaygateError => new PaygateError(RESULT_CODES.NOT_ALLOWED, message);

export const isPaygateError = (e: unknown): e is PaygateError => e instanceof PaygateError;

/**
 * The database could not be opened (missing directory, bad file, newer schema, zone conflict):
 * a start-up error. Here, not in store/, so the shells can tell it apart without importing the store.
 */
export class StoreOpenError extends Error {}

/**
 * The database connection was lost during ONE unit of work, which is not run again (PostgreSQL):
 * `committed` false when the server confirmed that unit wrote nothing, 'unknown' when it could not
 * be asked. Its message speaks for that unit only: a command made of many units (a renewal run)
 * says what its earlier ones kept. Here for the same reason as StoreOpenError.
 */
export class ConnectionLostError extends Error {
  constructor(
    message: string,
    readonly committed: false | 'unknown',
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * `db copy` stopped by its caller's AbortSignal (the CLI's SIGINT/SIGTERM) and undone: the target
 * is as it was before, or, when undoing it failed, `undone` is false and the message says what is
 * left. Here for the same reason as StoreOpenError.
 */
export class CopyInterrupted extends Error {
  constructor(
    message: string,
    readonly undone: boolean,
  ) {
    super(message);
  }
}
