/** The one clock. Services read ctx.clock.now(); domain functions take `now` as an argument. */
export interface Clock {
  /** Business time: what charges, records and callback bodies are dated (the test clock under `--at`). */
  now(): number;
  /**
   * Real time, never a test clock: what leases between processes are taken and compared on, since
   * a `serve` on the real clock and a `renew --at` a month ahead share them (docs/callbacks.md).
   */
  wall(): number;
}

export const systemClock: Clock = { now: () => Date.now(), wall: () => Date.now() };

/**
 * A settable clock for tests and for `renew --at`. Its real time is `real`'s (`renew --at` passes
 * the system clock); without one, the settable time stands for both, as tests of leases want.
 */
export class FixedClock implements Clock {
  constructor(
    private ms: number,
    private readonly real?: Clock,
  ) {}
  now(): number {
    return this.ms;
  }
  wall(): number {
    return this.real ? this.real.wall() : this.ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}
