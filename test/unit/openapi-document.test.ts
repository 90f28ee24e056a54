import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/http/openapi-document.js';

/** What a generated client needs from /openapi.json, beyond being valid (redocly checks that). */

const doc = openApiDocument('http://localhost:8080') as Record<string, any>;
const schemas = doc.components.schemas as Record<string, any>;
const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({ path, method, op })),
);
const signed = operations.filter((o) => !['Operations', 'Hosted pages', 'Channels'].includes(o.op.tags[0]));

describe('the OpenAPI document', () => {
  it('describes a field by its own meaning where it has one: the portal’s returnUrl is its back link, not a payment’s return', () => {
    expect(schemas.PortalSessionRequest.properties.returnUrl.description).toMatch(/Back to the shop/);
    expect(schemas.PayRequest.properties.returnUrl.description).toMatch(/after paying/);
  });

  it('gives every operation an operationId (unique), a tag and a summary', () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { op } of operations) {
      expect(op.operationId).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(op.tags).toHaveLength(1);
      expect(op.summary).toBeTruthy();
    }
  });

  it('secures every signed operation with the v2 header or the v1 sign, and describes both schemes', () => {
    expect(doc.components.securitySchemes.signatureV2).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Paygate-Signature',
    });
    expect(doc.components.securitySchemes.signatureV1).toMatchObject({ type: 'apiKey', in: 'query', name: 'sign' });
    for (const { method, op } of signed)
      expect(op.security).toEqual([{ signatureV2: [] }, method === 'get' ? { signatureV1: [] } : {}]);
  });

  it('puts v1 sign where it travels: the query string of a GET, the JSON body of a POST', () => {
    const schemaOf = (s: any): any[] =>
      s.$ref ? [schemas[s.$ref.split('/').pop()]] : (s.oneOf ?? [s]).flatMap((v: any) => schemaOf(v));
    for (const { method, path, op } of signed) {
      const query = (op.parameters ?? []).filter((p: any) => p.name === 'sign');
      if (method === 'get') {
        expect(query, path).toEqual([expect.objectContaining({ in: 'query', required: false })]);
      } else {
        expect(query, path).toEqual([]);
        for (const body of schemaOf(op.requestBody.content['application/json'].schema))
          expect(body.properties.sign, path).toMatchObject({ type: 'string' });
      }
    }
  });

  it('documents the callbacks as webhooks; a refund’s names the original payAmount and the running refundedAmount, no refund id', () => {
    expect(Object.keys(doc.webhooks)).toEqual(['paymentCallback', 'subscriptionCallback']);
    const payment = schemas.PaymentCallback;
    expect(doc.webhooks.paymentCallback.post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/PaymentCallback',
    });
    expect(payment.properties.status.enum).toEqual(expect.arrayContaining(['400010', '400000']));
    expect(payment.properties.payAmount.description).toMatch(/on a refund’s callback too \(not the refund’s amount\)/);
    expect(payment.properties.refundedAmount.description).toMatch(/Total refunded so far, this refund included/);
    expect(payment.description).toMatch(/It names no refund/);
    expect(payment.properties).not.toHaveProperty('refundTransactionId');
    for (const body of [payment, schemas.SubscriptionCallback])
      for (const [name, field] of Object.entries(body.properties as Record<string, any>))
        expect(field.type, name).toBe('string');
  });

  it('gives generators no range status keys and no untyped constants', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toMatch(/"[1-5]XX"/);
    expect(text).not.toMatch(/\{"const":/);
    expect(schemas.Address.additionalProperties).toBe(true);
  });

  it('answers a typed success envelope on 200 and a failure envelope per error status, never a bare default', () => {
    for (const { op } of signed) {
      const statuses = Object.keys(op.responses);
      expect(statuses).not.toContain('default');
      expect(statuses).toEqual(expect.arrayContaining(['200', '400', '401', '413', '415', '429', '500']));
      const ok = op.responses['200'].content['application/json'].schema;
      expect(ok.properties.success).toEqual({ type: 'boolean', const: true });
      expect(ok.required).toEqual(['rtn_code', 'rtn_msg', 'success', 'data']);
      expect(ok.properties.data).toBeTruthy();
      expect(op.responses['503'].description).toMatch(/shutting down/);
      for (const s of statuses.filter((x) => x !== '200' && x !== '503')) {
        const failure = op.responses[s].content['application/json'].schema;
        expect(failure.properties.success).toEqual({ type: 'boolean', const: false });
        expect(failure.properties.rtn_code.enum.length).toBeGreaterThan(0);
        expect(op.responses[s].headers['x-request-id']).toBeTruthy();
      }
      expect(op.responses['429'].headers['Retry-After']).toBeTruthy();
    }
  });

  it('declares pageNum and pageSize as integers with their range and default, so that 1 is valid', () => {
    const params = doc.paths['/subscription/billing/list'].get.parameters as any[];
    // "" is "not sent", like every optional parameter.
    expect(params.find((p) => p.name === 'pageNum').schema).toEqual({
      anyOf: [
        { type: 'integer', minimum: 1, maximum: 1_000_000_000 },
        { type: 'string', const: '' },
      ],
      default: 1,
    });
    expect(params.find((p) => p.name === 'pageSize').schema).toEqual({
      anyOf: [
        { type: 'integer', minimum: 1, maximum: 100 },
        { type: 'string', const: '' },
      ],
      default: 10,
    });
  });

  it('gives the user list its own item schema, without the detail-only fields', () => {
    const list =
      doc.paths['/subscription/user/list'].get.responses['200'].content['application/json'].schema.properties.data;
    expect(list).toEqual({ type: 'array', items: { $ref: '#/components/schemas/SubscriptionListItem' } });
    for (const f of ['planDescription', 'cycleType', 'cycleLength', 'totalPaid']) {
      expect(schemas.SubscriptionListItem.properties).not.toHaveProperty(f);
      expect(schemas.Subscription.properties).toHaveProperty(f);
    }
  });

  it('requires payAmount and currency of PAY and CHECKOUT only; /subscription/create takes only SUBSCRIPTION', () => {
    const body = doc.paths['/payment/{apiKey}/transaction'].post.requestBody.content['application/json'].schema;
    expect(body.discriminator.propertyName).toBe('paymentType');
    expect(schemas.PayRequest.required).toEqual(expect.arrayContaining(['payAmount', 'currency', 'cardInfo']));
    expect(schemas.CheckoutRequest.required).toEqual(expect.arrayContaining(['payAmount', 'currency']));
    expect(schemas.CheckoutRequest.required).not.toContain('cardInfo');
    expect(schemas.SubscriptionRequest.required).toEqual(expect.arrayContaining(['planId', 'userId', 'cardInfo']));
    expect(schemas.SubscriptionRequest.required).not.toContain('payAmount');
    expect(schemas.SubscriptionRequest.required).not.toContain('currency');
    expect(schemas.SubscribeRequest.properties.paymentType.anyOf[0]).toEqual({
      type: 'string',
      enum: ['SUBSCRIPTION'],
    });
    expect(schemas.SubscribeRequest.required).not.toContain('paymentType');
  });

  it('describes cardInfo and items as a JSON string or the JSON value', () => {
    expect(schemas.PayRequest.properties.cardInfo.anyOf).toEqual([
      {
        type: 'string',
        contentMediaType: 'application/json',
        contentSchema: { $ref: '#/components/schemas/CardInfo' },
      },
      { $ref: '#/components/schemas/CardInfo' },
    ]);
    expect(schemas.PayRequest.properties.items.anyOf.map((s: any) => s.type)).toEqual(['string', 'array', 'null']);
  });

  it('uses enums for the closed sets', () => {
    expect(schemas.Subscription.properties.status.enum).toEqual([
      'INCOMPLETE',
      'ACTIVE',
      'PAUSED',
      'CANCELLED',
      'FAILED',
      'EXPIRED',
    ]);
    expect(schemas.Plan.properties.status.enum).toEqual(['ACTIVE', 'INACTIVE']);
    expect(schemas.Plan.properties.cycleType.enum).toEqual(['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY']);
    expect(schemas.BillingRecord.properties.status.enum).toEqual(['PENDING', 'SUCCESS', 'FAILED', 'CANCELLED']);
    expect([...schemas.Refund.properties.status.enum].sort()).toEqual(['200000', '400000', '400010']);
    expect(schemas.Transaction.properties.failReason.enum).toContain('authentication_expired');
    expect(schemas.Transaction.properties.status.enum).toContain('100040');
    expect(schemas.Failure.properties.rtn_code.enum).toContain('1011');
  });

  it('documents a GET’s JSON-body alternative as an optional request body', () => {
    for (const { method, op } of signed.filter((o) => o.method === 'get')) {
      expect(method).toBe('get');
      expect(op.requestBody.required).toBe(false);
    }
  });
});
