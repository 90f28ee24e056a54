import { v1Sign, v2CallbackHeader } from '../domain/signature.js';

/**
 * The signed form of a stored callback body (SPEC §8), with the same signature module as the API:
 * v1 adds `sign` (v1 rule, METHOD POST, PATH = the notifyUrl's path) to the body; v2 leaves the
 * body as stored and signs `t.rawBody` in the X-Paygate-Signature header.
 */
export function signCallback(
  payload: string,
  a: { version: number; secret: string; url: URL; nowMs: number },
): { body: string; headers: Record<string, string> } {
  if (a.version === 1) {
    const fields = JSON.parse(payload) as Record<string, string>;
    const sign = v1Sign('POST', a.url.pathname, fields, a.secret);
    return { body: JSON.stringify({ ...fields, sign }), headers: {} };
  }
  const t = Math.floor(a.nowMs / 1000);
  return { body: payload, headers: { 'x-paygate-signature': v2CallbackHeader(a.secret, t, payload) } };
}
