import type { StripeJson } from './fixtures.js';

/** An API answer that is an error, with Stripe's body shape `{ error: { type, code?, message, … } }`. */
export class StandinError extends Error {
  constructor(
    readonly status: number,
    readonly error: StripeJson,
  ) {
    super(String(error.message ?? 'stripe error'));
  }
  body(): StripeJson {
    return { error: this.error };
  }
}

export function invalidRequest(message: string, extra: StripeJson = {}): StandinError {
  return new StandinError(400, { type: 'invalid_request_error', message, ...extra });
}

export function missing(kind: string, id: string, param = 'id'): StandinError {
  return new StandinError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    doc_url: 'https://stripe.com/docs/error-codes/resource-missing',
    message: `No such ${kind}: '${id}'`,
    param,
  });
}

export function maskKey(key: string): string {
  const prefix = /^(sk|rk)_(test|live)_/.exec(key)?.[0] ?? '';
  return `${prefix}${'*'.repeat(Math.max(0, key.length - prefix.length - 4))}${key.slice(-4)}`;
}

export function authError(key: string | null, revoked: boolean): StandinError {
  if (key === null) {
    return new StandinError(401, {
      type: 'invalid_request_error',
      message:
        "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
    });
  }
  return new StandinError(401, {
    type: 'invalid_request_error',
    code: revoked ? 'api_key_expired' : undefined,
    doc_url: revoked ? 'https://stripe.com/docs/error-codes/api-key-expired' : undefined,
    message: `${revoked ? 'Expired' : 'Invalid'} API Key provided: ${maskKey(key)}`,
  });
}

export const RATE_LIMIT_ERROR: StripeJson = {
  code: 'rate_limit',
  doc_url: 'https://stripe.com/docs/error-codes/rate-limit',
  message: 'Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.',
  type: 'invalid_request_error',
};

export const API_ERROR: StripeJson = {
  message: 'An unknown error occurred',
  type: 'api_error',
};

export function idempotencyMismatch(key: string): StandinError {
  return new StandinError(400, {
    type: 'idempotency_error',
    message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
  });
}

export function permissionError(
  key: string,
  accountId: string,
  resource: string,
  access: 'read' | 'write',
): StandinError {
  return new StandinError(403, {
    type: 'invalid_request_error',
    message: `The provided key '${maskKey(key)}' does not have the required permissions for this endpoint on account '${accountId}'. Having the 'rak_${resource.replace(/s$/, '')}_${access}' permission would allow this request to continue.`,
  });
}
