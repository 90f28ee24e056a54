import { createHash } from 'node:crypto';
import { type CallBudget, type CallWindow, memoryCallWindow, RUNNING_LEASE_MS, stripeBudgetFrom } from './budget.js';

interface Waiter {
  background: boolean;
  grant: (release: () => void) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** How soon a call waiting for a place another process holds asks again (it is not told when one frees). */
const RUNNING_POLL_MS = 20;

/**
 * One Stripe account's calls from this process: each call first takes one of the account's
 * places for calls under way, then a slot of its per-second budget. On PostgreSQL both are
 * counted in the shared window, so every process on the database keeps to one budget and 16
 * calls at once in all (SPEC §13). Waiters queue here, customer-present ones ahead of background
 * ones, and only the head of the queue asks the window: a burst of waiting calls costs one
 * question at a time, not one each.
 */
export class AccountPacer {
  private readonly present: Waiter[] = [];
  private readonly background: Waiter[] = [];
  private running = 0;
  private pumping = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly key: string,
    private readonly budget: CallBudget,
    private readonly window: CallWindow,
  ) {}

  /** Resolves with the function that gives the concurrent slot back once the call is answered. */
  acquire(background: boolean): Promise<() => void> {
    return new Promise((grant) => {
      (background ? this.background : this.present).push({ background, grant });
      // A customer-present call may be allowed where the background head is still waiting.
      if (!background) this.wake?.();
      void this.pump();
    });
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (;;) {
        const head = this.present[0] ?? this.background[0];
        if (!head || this.running >= this.budget.concurrent) return;
        const place = await this.enter();
        if (place === undefined) {
          await this.pause(RUNNING_POLL_MS);
          continue;
        }
        const limit = head.background ? this.budget.background : this.budget.perSecond;
        let wait: number;
        try {
          wait = await this.window.take(this.key, limit, Date.now());
        } catch {
          // The shared count could not be asked (the database is away): pace on a guess rather
          // than stop paying, at the budget's own spacing.
          wait = 0;
          await sleep(Math.ceil(1000 / this.budget.perSecond));
        }
        if (wait > 0) {
          this.leave(place);
          await this.pause(wait);
          continue;
        }
        const queue = head.background ? this.background : this.present;
        queue.shift();
        this.running++;
        let released = false;
        head.grant(() => {
          if (released) return;
          released = true;
          this.running--;
          this.leave(place);
          void this.pump();
        });
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Until `ms` pass, or a customer-present call arrives (it may go where the head may not). */
  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
    this.wake = null;
  }

  /**
   * A place among every process's calls under way: its lease end (0 where this process counts
   * alone), or undefined when all are taken. A count that cannot be asked lets the call go, as
   * the per-second window does: this process still keeps to its own 16.
   */
  private async enter(): Promise<number | undefined> {
    if (!this.window.enter) return 0;
    const now = Date.now();
    const until = now + RUNNING_LEASE_MS;
    try {
      return (await this.window.enter(`${this.key}:running`, this.budget.concurrent, now, until)) ? until : undefined;
    } catch {
      return 0;
    }
  }

  private leave(until: number): void {
    // A place not given back (the database away) frees itself at its lease end.
    if (until !== 0) this.window.leave?.(`${this.key}:running`, until).catch(() => {});
  }
}

let window: CallWindow = memoryCallWindow();
const pacers = new Map<string, AccountPacer>();

/**
 * Where this process counts Stripe calls: the database's shared window on PostgreSQL (set by the
 * composition root), else the process's own. Pacers made before keep the window they were made with.
 */
export function useCallWindow(w: CallWindow): void {
  window = w;
  pacers.clear();
}

/** The account's name in the shared count: a hash of its key, never the key. */
const budgetKey = (secretKey: string): string =>
  `stripe:${createHash('sha256').update(secretKey).digest('hex').slice(0, 24)}`;

export function pacerFor(secretKey: string): AccountPacer {
  const key = budgetKey(secretKey);
  let p = pacers.get(key);
  if (!p) {
    p = new AccountPacer(key, stripeBudgetFrom(secretKey), window);
    pacers.set(key, p);
  }
  return p;
}
