import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pause } from '../../src/notify/pause.js';

const DAY_OF_SECONDS = 86_400;

afterEach(() => {
  vi.useRealTimers();
});

function collectWarnings(): { warnings: Error[]; stop: () => void } {
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => {
    warnings.push(w);
  };
  process.on('warning', onWarning);
  return { warnings, stop: () => process.off('warning', onWarning) };
}

describe('the delivery loop pause leaves nothing behind on its long-lived signal', () => {
  it('a day of 1 s pauses (86,400) on one signal: no abort listener left, no warning', async () => {
    vi.useFakeTimers();
    const { warnings, stop } = collectWarnings();
    const halt = new AbortController();
    let pauses = 0;
    for (; pauses < DAY_OF_SECONDS; pauses++) {
      const p = pause(1000, halt.signal);
      // Exactly one listener while a pause runs; stop at the first leak rather than pile up 86,400.
      if (getEventListeners(halt.signal, 'abort').length !== 1) break;
      vi.advanceTimersByTime(1000);
      await p;
    }
    expect(pauses).toBe(DAY_OF_SECONDS);
    expect(getEventListeners(halt.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
    await new Promise((r) => process.nextTick(r)); // warnings are emitted on the next tick
    stop();
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('an abort ends the pause at once and removes its listener and timer', async () => {
    vi.useFakeTimers();
    const halt = new AbortController();
    let ended = false;
    const p = pause(60_000, halt.signal).then(() => {
      ended = true;
    });
    halt.abort();
    await p;
    expect(ended).toBe(true);
    expect(getEventListeners(halt.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
    // Already aborted: no wait, nothing added.
    await pause(60_000, halt.signal);
    expect(vi.getTimerCount()).toBe(0);
  });
});
