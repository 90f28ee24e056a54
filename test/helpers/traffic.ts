/** The HTTP exchanges the test helpers make, for the contract checks (test/setup/contract.ts). */
export interface RecordedExchange {
  method: string;
  url: string;
  requestBody?: string | undefined;
  status: number;
  responseHeaders: Record<string, string | undefined>;
  responseBody: string;
}

export const recorders = new Set<(x: RecordedExchange) => void>();

/** Every exchange made through `raw` (and so `client`) goes to `fn` until the returned stop is called (contract checks). */
export function recordTraffic(fn: (x: RecordedExchange) => void): () => void {
  recorders.add(fn);
  return () => recorders.delete(fn);
}

/** Hand an exchange made some other way (the example client's fetch) to the recorders. */
export function record(x: RecordedExchange): void {
  for (const fn of recorders) fn(x);
}

/** Origins of the `paygate serve` processes the helpers started: only their traffic is held to paygate's document. */
export const paygateOrigins = new Set<string>();
