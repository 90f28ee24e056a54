/**
 * A pause that ends after `ms`, or at once when `signal` aborts. Whichever comes first, the timer
 * is cleared and the abort listener removed: the delivery loop pauses on one long-lived signal
 * about 86,400 times a day, and a listener left behind per pause is a leak (and Node's
 * MaxListenersExceededWarning after the 11th).
 */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const end = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', end);
      resolve();
    };
    const timer = setTimeout(end, ms);
    signal?.addEventListener('abort', end, { once: true });
  });
}
