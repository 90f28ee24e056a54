import { canonical, type FormObject } from './form.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface IdemRecord {
  method: string;
  path: string;
  params: string;
  status: number;
  body: string;
  requestId: string;
  createdAt: number;
}

export type Lookup = { kind: 'new' } | { kind: 'replay'; record: IdemRecord } | { kind: 'conflict' };

/**
 * Stripe's idempotency layer: per account and key, the first result of a request that ran is
 * kept 24 hours (of the stand-in's clock); the same key with the same method, path and
 * parameters gets it back, with other parameters an idempotency_error.
 */
export class IdempotencyStore {
  private readonly records = new Map<string, IdemRecord>();

  lookup(accountId: string, key: string, method: string, path: string, params: FormObject, now: number): Lookup {
    const prior = this.records.get(`${accountId}\u0000${key}`);
    if (!prior || now - prior.createdAt >= DAY_MS) return { kind: 'new' };
    if (prior.method !== method || prior.path !== path || prior.params !== canonical(params))
      return { kind: 'conflict' };
    return { kind: 'replay', record: prior };
  }

  save(accountId: string, key: string, record: Omit<IdemRecord, 'params'> & { params: FormObject }): void {
    this.records.set(`${accountId}\u0000${key}`, { ...record, params: canonical(record.params) });
  }
}
