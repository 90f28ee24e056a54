import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, sendRaw } from '../helpers/socket.js';
import { client, raw, signV2, type Served, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';

/** Request-target forms, malformed HTTP and ambiguous bodies, against a real serve over raw sockets. */
let srv: Served;
let m: TestMerchant;
let host: string;
let shop: ServedShop;
let n = 0;

beforeAll(async () => {
  shop = await servedShop({ merchants: [[2, 'Hard Shop']] });
  srv = shop.srv;
  [m] = shop.merchants as [TestMerchant];
  host = new URL(srv.url).host;
});
afterAll(() => shop?.stop());

const TXN = () => `/payment/${m.apiKey}/transaction`;
const QUERY = () => `/payment/${m.apiKey}/transaction/query`;
const card = JSON.stringify({
  cardNumber: '4242424242424242',
  month: '12',
  year: String(new Date().getUTCFullYear() + 3),
  cvv: '123',
  holderName: 'Ada',
});

/** serve logs each request after answering it: wait for the line with this request id. */
async function logLine(reqId: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const line = srv
      .output()
      .split('\n')
      .find((l) => l.includes(reqId));
    if (line) return line;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no log line for ${reqId}`);
}

async function checkoutToken(): Promise<string> {
  n++;
  const r = await client(srv.url, m).post(TXN(), {
    requestId: `h-${n}`,
    relationId: `h-${n}`,
    paymentType: 'CHECKOUT',
    payAmount: '5.00',
    currency: 'USD',
  });
  expect(r.body.rtn_code).toBe('0000');
  return new URL(r.body.data.url as string).pathname.split('/')[2] as string;
}

/** A v2 signature over raw bytes, as a client that signs what it sends must compute it. */
function signBytes(method: string, path: string, bytes: Buffer): string {
  const t = Math.floor(Date.now() / 1000);
  const mac = createHmac('sha256', m.secret)
    .update(Buffer.concat([Buffer.from(`${t}.${method}.${path}.`, 'utf8'), bytes]))
    .digest('hex');
  return `t=${t},v2=${mac}`;
}

describe('credentials never reach the logs or an answer, whatever the request-target form', () => {
  it('an absolute-form request line serves the checkout page and logs only the start of its token', async () => {
    const token = await checkoutToken();
    const a = await sendRaw(
      srv.url,
      `GET http://${host}/checkout/${token} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    );
    expect(a.status).toBe(200);
    expect(a.body).toContain('Pay Hard Shop');
    const line = await logLine(a.headers['x-request-id'] as string);
    expect(line).toContain(`"url":"/checkout/${token.slice(0, 6)}…"`);
    expect(srv.output()).not.toContain(token.slice(6));
  });

  it('an absolute-form API request is routed, signed and logged by its path; user:password never logged', async () => {
    const qs = new URLSearchParams({ merchantId: m.merchantId, relationId: 'nope' }).toString();
    const sig = signV2('GET', QUERY(), qs, m.secret);
    const a = await sendRaw(
      srv.url,
      `GET http://user:hunter2@${host}${QUERY()}?${qs} HTTP/1.1\r\nHost: ${host}\r\nX-Paygate-Signature: ${sig}\r\nConnection: close\r\n\r\n`,
    );
    // Authenticated (the signed path is the origin-form path), then not found.
    expect(jsonOf(a)).toMatchObject({ rtn_code: '1007' });
    const line = await logLine(a.headers['x-request-id'] as string);
    expect(line).toContain(`"url":"/payment/${m.apiKey.slice(0, 6)}…/transaction/query?merchantId=`);
    expect(srv.output()).not.toContain(m.apiKey.slice(6));
    expect(srv.output()).not.toContain('hunter2');
  });

  it('a `//payment/<apiKey>/…` path is 404 1007 without the path in rtn_msg, and logged cut', async () => {
    const a = await sendRaw(
      srv.url,
      `GET /${QUERY()}?merchantId=${m.merchantId} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    );
    expect(a.status).toBe(404);
    const body = jsonOf(a);
    expect(body).toMatchObject({ rtn_code: '1007', success: false });
    expect(body.rtn_msg).not.toContain('payment');
    expect(body.rtn_msg).not.toContain(m.apiKey.slice(0, 6));
    await logLine(a.headers['x-request-id'] as string);
    expect(srv.output()).not.toContain(m.apiKey.slice(6));
  });

  it("Stripe's client secrets in a 3DS return's query never reach the log", async () => {
    const secret = 'pi_3Sxyz_secret_FvhLbL3LxsshY0P9HnDIq';
    const setup = 'seti_1Abc_secret_Q2w3e4r5t6y7u8i9o0p';
    const r = await raw(
      `${srv.url}/3ds/return/txn_unknown?payment_intent=pi_3Sxyz&payment_intent_client_secret=${secret}&setup_intent_client_secret=${setup}&redirect_status=succeeded`,
    );
    expect(r.status).toBeLessThan(500);
    const line = await logLine(r.headers.get('x-request-id') as string);
    expect(line).toContain('payment_intent=pi_3Sxyz');
    expect(srv.output()).not.toContain('FvhLbL3Lxs');
    expect(srv.output()).not.toContain('Q2w3e4r5t6');
  });

  it('percent-encoded and unrouted spellings of the apiKey are cut in the log too', async () => {
    const encoded = m.apiKey.replace('_', '%5F');
    for (const path of [
      `/payment/${encoded}/transaction/query`,
      `/payment/${m.apiKey}/nowhere`,
      `/v2/${m.apiKey}`,
      `/payment%2F${m.apiKey}/x`,
    ]) {
      const r = await raw(`${srv.url}${path}?merchantId=${m.merchantId}`);
      expect(r.status, path).toBeLessThan(500);
      if (r.body) expect(r.body.rtn_msg, path).not.toContain(m.apiKey.slice(6));
      await logLine(r.headers.get('x-request-id') as string);
    }
    expect(srv.output()).not.toContain(m.apiKey.slice(6));
  });
});

describe('what the HTTP parser refuses answers the envelope (1000)', () => {
  it('a URL over 16 KB is 400 with the envelope, and the connection is closed', async () => {
    const a = await sendRaw(
      srv.url,
      `GET ${QUERY()}?merchantId=${'x'.repeat(17 * 1024)} HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
    );
    expect(a.status).toBe(400);
    expect(a.headers['content-type']).toMatch(/^application\/json/);
    expect(a.headers.connection).toBe('close');
    expect(a.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(jsonOf(a)).toEqual({
      rtn_code: '1000',
      rtn_msg: expect.stringMatching(/^malformed request/),
      success: false,
    });
    expect(a.closed).toBe(true);
  });

  it('malformed HTTP is 400 with the envelope', async () => {
    for (const request of [
      'GARBAGE\r\n\r\n',
      `GET ${QUERY()} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: abc\r\n\r\n`,
      `POST ${TXN()} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}`,
      `GET ${QUERY()} HTTP/1.1\r\nHo st: x\r\n\r\n`,
    ]) {
      const a = await sendRaw(srv.url, request);
      expect(a.status, request).toBe(400);
      expect(a.headers['x-request-id'], request).toMatch(/^[0-9a-f-]{36}$/);
      expect(jsonOf(a), request).toEqual({
        rtn_code: '1000',
        rtn_msg: 'malformed request: not valid HTTP/1.1',
        success: false,
      });
      expect(a.closed, request).toBe(true);
    }
  });

  // serve's request timeout is 30 s: a connection left open for the body would outlive this bound.
  it('a GET declaring a huge Content-Length gets its 413 envelope and the connection is closed at once', async () => {
    const a = await sendRaw(
      srv.url,
      `GET ${QUERY()} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n{`,
      10_000,
    );
    expect(a.status).toBe(413);
    expect(jsonOf(a)).toMatchObject({ rtn_code: '1000', success: false });
    expect(a.headers.connection).toBe('close');
    expect(a.closed).toBe(true);
  });

  it('a POST declaring a huge Content-Length too', async () => {
    const a = await sendRaw(
      srv.url,
      `POST ${TXN()} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n{`,
      10_000,
    );
    expect(a.status).toBe(413);
    expect(jsonOf(a)).toMatchObject({ rtn_code: '1000', success: false });
    expect(a.closed).toBe(true);
  });

  // RFC 9112 §9.6: closing on unread bytes resets the connection, and a client still sending its
  // body sees EPIPE instead of the answer. paygate reads (and drops) a body up to 8 MiB first.
  it('a client still uploading a 2 MiB body gets its 413 envelope, not a reset', async () => {
    const { hostname, port } = new URL(srv.url);
    const body = Buffer.alloc(2 * 1024 * 1024, 32);
    const outcome = await new Promise<{ writeError?: string; answer: string }>((resolve) => {
      const chunks: Buffer[] = [];
      let writeError: string | undefined;
      // Half-open, as a client that writes its whole body before reading: the server's FIN does not stop it.
      const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true }, async () => {
        socket.write(
          `POST ${TXN()} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        // Slowly enough that the server has answered long before the last piece is sent.
        for (let at = 0; at < body.length && writeError === undefined; at += 128 * 1024) {
          await new Promise<void>((ok) =>
            socket.write(body.subarray(at, at + 128 * 1024), (e?: NodeJS.ErrnoException | null) => {
              writeError ??= e?.code;
              ok();
            }),
          );
          await new Promise((ok) => setTimeout(ok, 20));
        }
        socket.end();
      });
      socket.on('data', (d: Buffer) => chunks.push(d));
      socket.on('error', (e: NodeJS.ErrnoException) => (writeError ??= e.code));
      socket.on('close', () => resolve({ writeError, answer: Buffer.concat(chunks).toString('utf8') }));
      setTimeout(() => socket.destroy(), 20_000);
    });
    expect(outcome.writeError).toBeUndefined();
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.answer).toContain('"rtn_code":"1000"');
  });

  it('an ordinary request keeps its connection open for the next one', async () => {
    const a = await sendRaw(srv.url, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 500);
    expect(a.status).toBe(200);
    expect(a.headers.connection).toBe('keep-alive');
    expect(a.closed).toBe(false);
  });
});

describe('ambiguous bodies are refused (1000)', () => {
  it('a key given twice is 1000 even when correctly signed, and nothing is charged', async () => {
    const rel = `dup-${Date.now()}`;
    const body = `{"merchantId":"${m.merchantId}","requestId":"${rel}","relationId":"${rel}","paymentType":"PAY","payAmount":"1.00","payAmount":"99.00","currency":"USD","cardInfo":${JSON.stringify(card)}}`;
    const r = await raw(srv.url + TXN(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-paygate-signature': signV2('POST', TXN(), body, m.secret) },
      body,
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      rtn_code: '1000',
      success: false,
      rtn_msg: expect.stringContaining('"payAmount" more than once'),
    });
    expect((await client(srv.url, m).get(QUERY(), { relationId: rel })).body.rtn_code).toBe('1007');
  });

  it('a nested key given twice is 1000', async () => {
    const body = `{"merchantId":"${m.merchantId}","requestId":"n1","relationId":"n1","paymentType":"CHECKOUT","payAmount":"1.00","currency":"USD","x":{"a":[{"b":1,"b":2}]}}`;
    const r = await raw(srv.url + TXN(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-paygate-signature': signV2('POST', TXN(), body, m.secret) },
      body,
    });
    expect(r.body).toMatchObject({ rtn_code: '1000', rtn_msg: expect.stringContaining('"b" more than once') });
  });

  it('a body that is not valid UTF-8 is 1000, even with a v2 signature over its bytes', async () => {
    const bytes = Buffer.concat([
      Buffer.from(
        `{"merchantId":"${m.merchantId}","requestId":"u1","relationId":"u1","paymentType":"CHECKOUT","payAmount":"1.00","currency":"USD","items":"[{\\"name\\":\\"caf`,
      ),
      Buffer.from([0xe9]),
      Buffer.from('\\",\\"price\\":\\"1.00\\"}]"}'),
    ]);
    const r = await raw(srv.url + TXN(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-paygate-signature': signBytes('POST', TXN(), bytes) },
      body: bytes,
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ rtn_code: '1000', rtn_msg: 'request body is not valid UTF-8' });
    // The same request in valid UTF-8, signed over its bytes, goes through.
    const good = Buffer.from(bytes.toString('latin1').replace('\u00e9', 'é'), 'utf8');
    const ok = await raw(srv.url + TXN(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-paygate-signature': signBytes('POST', TXN(), good) },
      body: good,
    });
    expect(ok.body).toMatchObject({ rtn_code: '0000' });
  });

  it('a GET whose JSON body is not valid UTF-8 is 1000', async () => {
    const bytes = Buffer.concat([
      Buffer.from(`{"merchantId":"${m.merchantId}","relationId":"x`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const r = await raw(srv.url + QUERY(), {
      method: 'GET',
      headers: { 'content-type': 'application/json', 'x-paygate-signature': signBytes('GET', QUERY(), bytes) },
      body: bytes,
    });
    expect(r.body).toMatchObject({ rtn_code: '1000', rtn_msg: 'request body is not valid UTF-8' });
  });
});

describe('hosted page paths holding U+0000', () => {
  it('are the not-found page (404), never an error page, for every page route', async () => {
    const token = await checkoutToken();
    for (const path of ['/checkout/%00abc', `/checkout/${token}%00`, '/3ds/%00', '/card/%00', '/3ds/return/txn_%00']) {
      const r = await raw(srv.url + path);
      expect([path, r.status]).toEqual([path, 404]);
      expect(r.text).not.toContain('Something went wrong');
    }
    // The token itself still opens its page.
    expect((await raw(`${srv.url}/checkout/${token}`)).status).toBe(200);
  });
});
