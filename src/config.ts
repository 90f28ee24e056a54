import { invalidParam } from './domain/errors.js';
import { isValidZone } from './domain/time.js';
import { smtpUrlProblem } from './notify/email/smtp-url.js';

/** Settings of SPEC §1 that the core needs, read from flags and the environment once. */
export interface AppConfig {
  dbPath: string;
  /** Explicit zone from --tz / PAYGATE_TZ, or undefined to use the database's recorded zone (UTC for a new one). */
  zone: string | undefined;
  vaultKey: string | undefined;
  /** PAYGATE_DB_POOL as given: connections per process on PostgreSQL (checked when the database opens). */
  dbPool: string | undefined;
  /** Days between a failed renewal attempt and its retries (SPEC §6). */
  retryDays: number[];
  callbackPrivate: 'allow' | 'deny';
  /**
   * Base of checkout / 3DS links (SPEC §1): PAYGATE_PUBLIC_URL, else the one recorded in the
   * database (`paygate config set public-url`, or serve's --public-url), else serve's address.
   */
  publicUrl: string;
  /** Whether publicUrl came from PAYGATE_PUBLIC_URL (it then beats the recorded one). */
  publicUrlFromEnv: boolean;
  /** PAYGATE_SMTP_URL (SPEC §17): unset, no customer email is written at all. */
  smtpUrl: string | undefined;
}

export interface ConfigInput {
  db?: string | undefined;
  tz?: string | undefined;
}

export function parseRetryDays(text: string | undefined): number[] {
  if (text === undefined || text.trim() === '') return [1, 3, 5];
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length !== 3 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) < 1)) {
    throw invalidParam('PAYGATE_RETRY_DAYS', 'must be three whole numbers of days ≥ 1, e.g. "1,3,5"');
  }
  return parts.map(Number);
}

/** A security setting: a typo must not quietly leave private targets allowed. */
export function parseCallbackPrivate(text: string | undefined): 'allow' | 'deny' {
  if (text === undefined || text.trim() === '' || text.trim() === 'allow') return 'allow';
  if (text.trim() === 'deny') return 'deny';
  throw invalidParam('PAYGATE_CALLBACK_PRIVATE', 'must be deny (or allow, the default)');
}

/** Checked at start-up: a typo must fail loudly, not leave customer emails piling up unsent. */
export function parseSmtpUrl(text: string | undefined): string | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const problem = smtpUrlProblem(text.trim());
  if (problem) throw invalidParam('PAYGATE_SMTP_URL', problem);
  return text.trim();
}

export function loadConfig(input: ConfigInput, env: NodeJS.ProcessEnv = process.env): AppConfig {
  const zone = input.tz ?? env.PAYGATE_TZ;
  if (zone !== undefined && !isValidZone(zone)) throw invalidParam('tz', `unknown time zone ${zone}`);
  return {
    dbPath: input.db ?? env.PAYGATE_DB ?? './paygate.db',
    zone,
    vaultKey: env.PAYGATE_VAULT_KEY,
    dbPool: env.PAYGATE_DB_POOL,
    retryDays: parseRetryDays(env.PAYGATE_RETRY_DAYS),
    callbackPrivate: parseCallbackPrivate(env.PAYGATE_CALLBACK_PRIVATE),
    publicUrl: (
      env.PAYGATE_PUBLIC_URL || `http://${env.PAYGATE_HOST || '127.0.0.1'}:${env.PAYGATE_PORT || '8080'}`
    ).replace(/\/+$/, ''),
    publicUrlFromEnv: Boolean(env.PAYGATE_PUBLIC_URL),
    smtpUrl: parseSmtpUrl(env.PAYGATE_SMTP_URL),
  };
}

/** Whether PAYGATE_DB / --db names a PostgreSQL database rather than a SQLite file. */
export function isDatabaseUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/** The database as it may be shown in output and logs: a URL never with its password. */
export function displayDb(db: string): string {
  if (!isDatabaseUrl(db)) return db;
  try {
    const u = new URL(db);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the PostgreSQL database';
  }
}
