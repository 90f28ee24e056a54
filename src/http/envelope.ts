import { PaygateError, RESULT_CODES, type ResultCode } from '../domain/errors.js';

/**
 * The SPEC §3 envelope and the ONE mapping from rtn_code to HTTP status. Routes return data or
 * throw PaygateError; nothing else in the HTTP layer picks a status for an API answer.
 */
export interface Envelope {
  rtn_code: ResultCode;
  rtn_msg: string;
  success: boolean;
  data?: unknown;
}

const STATUS: Record<ResultCode, number> = {
  '0000': 200,
  '1000': 400,
  '1001': 400,
  '1002': 401,
  '1003': 401,
  '1004': 429,
  '1005': 409,
  '1006': 409,
  '1007': 404,
  '1008': 409,
  '1009': 422,
  '1010': 422,
  '1011': 422,
  '1012': 422,
  '9999': 500,
};

export function httpStatusOf(code: ResultCode): number {
  return STATUS[code];
}

/** A 1000 with its own status (413 too large, 415 wrong content type, 400 otherwise). */
export class MalformedRequest extends PaygateError {
  readonly httpStatus: number;
  constructor(message: string, httpStatus = 400) {
    super(RESULT_CODES.MALFORMED, message);
    this.httpStatus = httpStatus;
  }
}

/** 1004 with the whole seconds for Retry-After. */
export class RateLimited extends PaygateError {
  readonly retryAfter: number;
  constructor(retryAfter: number) {
    super(RESULT_CODES.RATE_LIMITED, `rate limit exceeded; retry after ${retryAfter} s`);
    this.retryAfter = retryAfter;
  }
}

export function statusOfError(e: PaygateError): number {
  return e instanceof MalformedRequest ? e.httpStatus : httpStatusOf(e.code);
}

/** SPEC §3: fields without a value are left out rather than sent as null (at every depth). */
export function pruneEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pruneEmpty);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = pruneEmpty(v);
    return out;
  }
  return value;
}

export function success(data: unknown): Envelope {
  return { rtn_code: RESULT_CODES.SUCCESS, rtn_msg: 'success', success: true, data: pruneEmpty(data) };
}

export function failure(code: ResultCode, message: string, data?: unknown): Envelope {
  return data === undefined
    ? { rtn_code: code, rtn_msg: message, success: false }
    : { rtn_code: code, rtn_msg: message, success: false, data };
}
