import { afterEach, describe, expect, it } from 'vitest';
import { startDeliveryLoop } from '../../src/notify/deliver.js';
import { testApp, type TestApp } from '../helpers/ctx.js';

let app: TestApp | undefined;
afterEach(() => app?.close());

describe("serve's delivery loop", () => {
  it('idles through hundreds of passes and pauses on one stop signal without a MaxListenersExceededWarning', async () => {
    app = testApp();
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w);
    };
    process.on('warning', onWarning);
    // Count passes by the write transactions they open (an idle pass opens one or two).
    const writer = app.ctx.writer;
    const transaction = writer.transaction.bind(writer);
    let transactions = 0;
    let reached!: () => void;
    const enough = new Promise<void>((resolve) => (reached = resolve));
    writer.transaction = <T>(fn: () => T): Promise<T> => {
      if (++transactions === 600) reached();
      return transaction(fn);
    };
    try {
      const loop = startDeliveryLoop(app.ctx, { intervalMs: 0 });
      await enough;
      await loop.stop();
      await new Promise((r) => setImmediate(r)); // warnings are emitted asynchronously
    } finally {
      process.off('warning', onWarning);
      writer.transaction = transaction;
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
  });
});
