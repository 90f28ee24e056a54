import type { TestEngine } from './env.js';
import { paygateAsync } from './cli-async.js';
import { paygate, type CliResult } from './cli.js';
import { createMerchant, startServe, type Served, type ServeOptions, type TestMerchant } from './serve.js';
import { shopDatabase, type RowReader } from './shop-db.js';

/**
 * The set-up every HTTP end-to-end suite shares: a fresh database on the engine under test,
 * merchants created with the real CLI, and one real `paygate serve` on it.
 *
 *   let shop: ServedShop;
 *   beforeAll(async () => (shop = await servedShop({ merchants: [[1, 'V1 Shop'], [2, 'V2 Shop']] })));
 *   afterAll(() => shop.stop());
 *   client(shop.url, shop.merchants[0]).post(…)
 */
export interface ServedShop {
  readonly engine: TestEngine;
  /** What `--db` takes: a SQLite file or a postgres:// URL. */
  readonly db: string;
  /** A temp directory of the suite's own, removed on stop. */
  readonly dir: string;
  readonly srv: Served;
  readonly url: string;
  /** The merchants asked for, in order. */
  readonly merchants: TestMerchant[];
  /** Rows of the shop's database, read as another process would. */
  readonly rows: RowReader;
  /** One more merchant, created with the CLI while serve runs. */
  merchant(signatureVersion?: 1 | 2, name?: string): TestMerchant;
  /** The real CLI on the shop's database (`--db` prepended). */
  cli(args: string[], opts?: Parameters<typeof paygate>[1]): CliResult;
  /** Another `serve` on the same database (stopped with the shop unless the test stops it first). */
  serve(opts?: Omit<ServeOptions, 'dbPath'>): Promise<Served>;
  /** Stops every serve of the shop, then removes its database. */
  stop(): Promise<void>;
}

export interface ServedShopOptions {
  /** Default: PAYGATE_TEST_ENGINE (test/helpers/ctx.ts). */
  engine?: TestEngine;
  /** [signature version, name] of each merchant to create before serve starts. Default: none. */
  merchants?: Array<[1 | 2, string]>;
  /** Options of the first serve (extra arguments, environment). */
  serve?: Omit<ServeOptions, 'dbPath'>;
}

async function createMerchantAsync(db: string, signatureVersion: 1 | 2, name: string): Promise<TestMerchant> {
  const r = await paygateAsync([
    '--db',
    db,
    '--json',
    'merchant',
    'create',
    '--name',
    name,
    '--signature-version',
    String(signatureVersion),
  ]);
  if (r.status !== 0) throw new Error(`merchant create failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as TestMerchant;
}

export async function servedShop(opts: ServedShopOptions = {}): Promise<ServedShop> {
  const database = await shopDatabase({ engine: opts.engine, prefix: 'paygate-served-' });
  const served: Served[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(served.map((s) => s.stop()));
    await database.drop();
  };
  try {
    const serve = async (o: Omit<ServeOptions, 'dbPath'> = {}): Promise<Served> => {
      const s = await startServe({ ...o, dbPath: database.db });
      served.push(s);
      return s;
    };
    // The first command creates (and migrates) the database; after that the other merchants and
    // serve start side by side.
    const [first, ...rest] = opts.merchants ?? [];
    const firstMerchant = first ? [createMerchant(database.db, ...first)] : [];
    const [srv, ...others] = await Promise.all([
      serve(opts.serve),
      ...rest.map((m) => createMerchantAsync(database.db, ...m)),
    ]);
    const merchants = [...firstMerchant, ...others];
    return {
      engine: database.engine,
      db: database.db,
      dir: database.dir,
      srv,
      url: srv.url,
      merchants,
      rows: database.rows,
      merchant: (version = 2, name = 'Test Shop') => createMerchant(database.db, version, name),
      cli: (args, cliOpts) => paygate(['--db', database.db, ...args], cliOpts),
      serve,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
