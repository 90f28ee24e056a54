/**
 * SIGINT/SIGTERM turned into a request to stop, for long commands that must not die mid-way
 * (`renew` finishing its charge, `db copy` undoing what it wrote): while it is installed the
 * process is not killed by the signal; the command looks at `requested` or `signal` and stops
 * cleanly. A repeated signal changes nothing: the clean stop is already under way.
 */
export interface StopSignal {
  requested: () => boolean;
  /** The first signal received, if any. */
  received: () => NodeJS.Signals | undefined;
  /** Aborted by the first signal (for code that takes an AbortSignal). */
  signal: AbortSignal;
  /** Resolves when a stop is requested. */
  wait: Promise<void>;
  dispose: () => void;
}

export function stopSignal(): StopSignal {
  let first: NodeJS.Signals | undefined;
  const controller = new AbortController();
  let wake: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const onSignal = (name: NodeJS.Signals): void => {
    first ??= name;
    controller.abort(new Error(`stopped by ${name}`));
    wake();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    requested: () => first !== undefined,
    received: () => first,
    signal: controller.signal,
    wait,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
