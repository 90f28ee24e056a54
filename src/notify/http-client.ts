import type { Agent, Dispatcher } from 'undici';
import type { CallbackPrivateMode } from './address-policy.js';
import { guardedConnector, RefusedTargetError } from './connector.js';

/**
 * The one HTTP client of callbacks (SPEC §8): a shared undici Agent per process with keep-alive
 * and a connection cap per origin, so one busy merchant cannot open unbounded sockets and
 * repeated callbacks to the same shop reuse connections. Redirects are never followed (undici's
 * `request` does not follow them; a 3xx is just a non-2xx answer).
 */

export const CALLBACK_TIMEOUT_MS = 10_000;
/** At most this much of a response is read; the rest is discarded with the connection. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/**
 * How long the body is read once the status is in. The status decides the attempt; the body is
 * only read so that a connection whose body ends at once can be reused, and for the excerpt of a
 * non-2xx in lastError. A body still coming after this is cut, with its connection.
 */
export const RESPONSE_BODY_MS = 1_000;
/** Connections per origin. */
export const CONNECTIONS_PER_ORIGIN = 4;

const agents = new Map<CallbackPrivateMode, Agent>();

/** undici is loaded on the first callback only: commands that never deliver skip its start-up cost. */
let undiciModule: Promise<typeof import('undici')> | undefined;
const undici = (): Promise<typeof import('undici')> => (undiciModule ??= import('undici'));

/** One agent per address policy; its connector enforces the policy on every connection (connector.ts). */
export async function callbackAgent(mode: CallbackPrivateMode): Promise<Agent> {
  const { Agent, buildConnector } = await undici();
  let agent = agents.get(mode);
  if (!agent) {
    agent = new Agent({
      connections: CONNECTIONS_PER_ORIGIN,
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
      connect: guardedConnector(buildConnector, mode, { timeout: CALLBACK_TIMEOUT_MS }),
    });
    agents.set(mode, agent);
  }
  return agent;
}

/** Close the shared agents (tests, shutdown). The next delivery creates fresh ones. */
export async function closeCallbackAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close()));
}

export type PostResult = { ok: true; status: number; snippet: string } | { ok: false; status?: number; error: string };

/**
 * POST `body` to `url`. The status line decides (SPEC §8): a 2xx whose status and headers arrive
 * within `timeoutMs` is delivered, whatever its body does after. The whole exchange (queueing for
 * a connection, connecting, headers and the short read of the body) is bounded by `timeoutMs`, so
 * a hanging receiver costs one slot for at most that long. Never throws.
 */
export async function postJson(
  url: URL,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs?: number; dispatcher: Dispatcher },
): Promise<PostResult> {
  const timeoutMs = opts.timeoutMs ?? CALLBACK_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const { request } = await undici();
  try {
    const res = await request(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'user-agent': 'paygate-callback/0.1', ...headers },
      dispatcher: opts.dispatcher,
      signal,
      // The signal is the one deadline; undici's own timers are only a backstop behind it.
      headersTimeout: timeoutMs + 1000,
      bodyTimeout: timeoutMs + 1000,
    });
    // Past this point nothing may turn the answer into a failure: readCapped never throws.
    const snippet = await readCapped(res.body);
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return ok
      ? { ok: true, status: res.statusCode, snippet }
      : { ok: false, status: res.statusCode, error: `HTTP ${res.statusCode}${snippet ? `: ${snippet}` : ''}` };
  } catch (e) {
    // The address policy stopped the connection before anything was sent: its reason, as is.
    if (e instanceof RefusedTargetError) return { ok: false, error: e.message };
    const code = (e as NodeJS.ErrnoException | undefined)?.code;
    if (
      signal.aborted ||
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT'
    ) {
      return { ok: false, error: `timeout after ${timeoutMs} ms` };
    }
    return { ok: false, error: describe(e) };
  }
}

/**
 * Read at most MAX_RESPONSE_BYTES for at most RESPONSE_BODY_MS (and never past the request's
 * signal, which undici also applies to the body), then drop the rest; returns a short printable
 * excerpt of what arrived. Never throws: a body that fails or is cut keeps what came before.
 * A body not read to its end is destroyed, which closes its connection (it cannot be reused), so
 * a slow body never holds a socket of the agent.
 */
async function readCapped(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const cut = setTimeout(() => body.destroy(), RESPONSE_BODY_MS);
  try {
    for await (const chunk of body) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      chunks.push(buf);
      size += buf.length;
      if (size >= MAX_RESPONSE_BYTES) break;
    }
  } catch {
    // Cut at RESPONSE_BODY_MS, aborted by the timeout, or reset by the receiver: the status stands.
  } finally {
    clearTimeout(cut);
    if (!body.readableEnded) body.destroy();
  }
  const text = Buffer.concat(chunks).subarray(0, 200).toString('utf8');
  return text.replace(/\s+/g, ' ').trim();
}

function describe(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as NodeJS.ErrnoException).code;
    const cause = e.cause instanceof Error ? e.cause.message : undefined;
    return [code, cause ?? e.message].filter(Boolean).join(': ').slice(0, 300);
  }
  return 'request failed';
}
