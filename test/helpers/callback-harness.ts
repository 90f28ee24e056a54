import { afterAll, afterEach, beforeAll } from 'vitest';
import { closeCallbackAgents } from '../../src/notify/http-client.js';
import { ensureBuilt } from './build.js';
import { testApp, type TestApp, type TestEngine } from './ctx.js';
import { startReceiver, type Receiver } from './receiver.js';

/**
 * The set-up every callback suite shares, registered as the file's hooks:
 *  - one real receiver on loopback for the whole file (`rx`), its record and answer reset after
 *    each test;
 *  - test apps opened with `open()` on the engine under test (PAYGATE_TEST_ENGINE unless given),
 *    each closed after its test — once, and awaited, so a database is never handed back twice;
 *  - the callback agents closed at the end, so no keep-alive socket outlives the file;
 *  - `build: true` for suites that spawn the real CLI (it runs dist/, rebuilt if stale).
 *
 *   const { rx, open } = callbackHarness();
 *   it('…', async () => { const app = await open(); … rx.url('/hooks') … });
 */
export interface CallbackHarness {
  /** The file's receiver; usable inside tests and hooks (it starts in beforeAll). */
  readonly rx: Receiver;
  open(opts?: Parameters<typeof testApp>[0]): Promise<TestApp>;
}

export function callbackHarness(opts: { build?: boolean; engine?: TestEngine } = {}): CallbackHarness {
  let started: Receiver | undefined;
  const opened: TestApp[] = [];
  const real = (): Receiver => {
    if (!started) throw new Error('callbackHarness: the receiver starts in beforeAll; use it inside tests and hooks');
    return started;
  };

  beforeAll(async () => {
    if (opts.build) ensureBuilt();
    started = await startReceiver();
  }, 120_000);
  afterEach(async () => {
    for (const app of opened.splice(0)) await app.close();
    real().received.length = 0;
    real().answer(() => 200);
  });
  afterAll(async () => {
    await closeCallbackAgents();
    await started?.close();
  });

  const rx: Receiver = {
    url: (path) => real().url(path),
    get received() {
      return real().received;
    },
    answer: (fn) => real().answer(fn),
    close: () => real().close(),
  };
  return {
    rx,
    open: async (appOpts = {}) => {
      const app = await testApp({ engine: opts.engine, ...appOpts });
      opened.push(app);
      return app;
    },
  };
}
