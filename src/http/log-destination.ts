import { write, writeSync } from 'node:fs';

/**
 * Where `serve`'s log lines go: standard output, written as pino's default destination writes
 * it (a line at once while the output takes it; lines batched while a write of a busy output is
 * under way, what is left written synchronously at exit) — except when the output cannot be
 * written. pino's default
 * (sonic-boom) retries a failed write for ever, sleeping the main thread, once the disk is full
 * (ENOSPC, or EFBIG past a file size limit): the server stopped answering and ignored SIGTERM.
 * Here a line that cannot be written is dropped, stderr says so once, and the server goes on;
 * when the output can be written again, logging resumes and stderr says how many lines were lost.
 */

/** Lines kept while the output is busy (a pipe nobody reads): beyond this, new lines are dropped. */
const MAX_PENDING_BYTES = 4 * 1024 * 1024;
/** A busy output (EAGAIN: a full non-blocking pipe) is tried again after this long, as sonic-boom does. */
const BUSY_RETRY_MS = 100;
/** At exit, how long a busy output is waited for before the lines left are dropped. */
const EXIT_WAIT_MS = 1000;

const busy = (code: string | undefined): boolean => code === 'EAGAIN' || code === 'EBUSY';
const why = (e: unknown): string => (e instanceof Error ? e.message.replace(/, write$/, '') : String(e));

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

interface Batch {
  buf: Buffer;
  lines: number;
  /** Bytes of it already written: a batch that fails after some leaves a torn line behind. */
  written: number;
}

export class LogDestination {
  readonly #fd: number;
  readonly #report: (line: string) => void;
  #pending: string[] = [];
  #pendingBytes = 0;
  /** The batch being written, or waiting to be tried again when the output was busy. */
  #current: Batch | undefined;
  /** An fs.write of #current is under way (in libuv's thread pool). */
  #inFlight = false;
  #dropped = 0;
  /** Why lines are being dropped, while they are. */
  #failure: string | undefined;
  /** The last write failed part-way through a line: the next one starts on a new line. */
  #torn = false;
  #held = false;
  #heldFailure: string | undefined;
  #flushed: Array<() => void> = [];

  constructor(fd: number, report: (line: string) => void = toStderr) {
    this.#fd = fd;
    this.#report = report;
  }

  /** pino's interface: one serialised line. Never throws, never blocks. */
  write(line: string): boolean {
    // Nothing queued: written at once, as pino's default does (a write to a file or pipe that
    // has room does not block); only a busy or failing output queues or drops lines.
    if (this.#current === undefined && this.#pending.length === 0) return this.#writeNow(line);
    const bytes = Buffer.byteLength(line);
    if (this.#pendingBytes + bytes > MAX_PENDING_BYTES) {
      this.#drop(1, 'the log output is not being read');
      return true;
    }
    this.#pending.push(line);
    this.#pendingBytes += bytes;
    if (this.#current === undefined) this.#next();
    return true;
  }

  /** pino's logger.flush(): `done` once every line so far is written (or dropped). */
  flush(done: (err?: Error) => void = () => {}): void {
    if (this.#current === undefined && this.#pending.length === 0) process.nextTick(done);
    else this.#flushed.push(() => done());
  }

  /**
   * Everything not yet written, written now (at exit; pino calls it after a fatal line). A busy
   * output is waited for at most EXIT_WAIT_MS; a failing one loses the lines: never a hang.
   */
  flushSync(): void {
    const deadline = Date.now() + EXIT_WAIT_MS;
    // A write under way in the thread pool finishes on its own; one waiting for a retry is written here.
    const batches: Batch[] = [];
    if (this.#current !== undefined && !this.#inFlight) batches.push(this.#current);
    if (this.#pending.length > 0) batches.push(this.#take());
    if (!this.#inFlight) this.#current = undefined;
    for (const [i, batch] of batches.entries()) {
      while (batch.written < batch.buf.length) {
        try {
          batch.written += writeSync(this.#fd, batch.buf, batch.written);
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (busy(code) && Date.now() < deadline) {
            sleep(10);
            continue;
          }
          this.#drop(
            batches.slice(i).reduce((n, b) => n + b.lines, 0),
            why(e),
          );
          return;
        }
      }
    }
  }

  /**
   * `serve` starting: a failure is not reported on stderr but kept for `release`, which makes it
   * the start-up error (one line) instead.
   */
  hold(): void {
    this.#held = true;
  }

  /** Once the lines so far are written or dropped: why the log cannot be written, if it cannot; reports go to stderr from now on. */
  async release(): Promise<string | undefined> {
    await new Promise<void>((resolve) => this.flush(() => resolve()));
    this.#held = false;
    const failure = this.#heldFailure;
    this.#heldFailure = undefined;
    return failure;
  }

  #writeNow(line: string): boolean {
    const buf = Buffer.from((this.#torn ? '\n' : '') + line);
    let written = 0;
    try {
      written = writeSync(this.#fd, buf);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (!busy(code)) {
        this.#drop(1, why(e));
        return true;
      }
    }
    if (written < buf.length) {
      // Busy (a full pipe) or written in part: the rest goes the queued way.
      this.#current = { buf, lines: 1, written };
      this.#send();
      return true;
    }
    this.#written();
    return true;
  }

  /** A write went through whole: the output works (again). */
  #written(): void {
    this.#torn = false;
    if (this.#failure !== undefined) {
      this.#say(`paygate: the log can be written again; ${this.#dropped} log line(s) were dropped`);
      this.#failure = undefined;
      this.#dropped = 0;
    }
  }

  #take(): Batch {
    const text = (this.#torn ? '\n' : '') + this.#pending.join('');
    const batch = { buf: Buffer.from(text), lines: this.#pending.length, written: 0 };
    this.#pending = [];
    this.#pendingBytes = 0;
    return batch;
  }

  #next(): void {
    if (this.#pending.length === 0) {
      this.#current = undefined;
      const waiting = this.#flushed;
      this.#flushed = [];
      for (const done of waiting) done();
      return;
    }
    this.#current = this.#take();
    this.#send();
  }

  #send(): void {
    const batch = this.#current as Batch;
    this.#inFlight = true;
    write(this.#fd, batch.buf, batch.written, batch.buf.length - batch.written, null, (err, n) => {
      this.#inFlight = false;
      if (this.#current !== batch) return; // written (or dropped) by flushSync meanwhile
      if (err) {
        if (busy(err.code)) {
          setTimeout(() => {
            if (this.#current === batch && !this.#inFlight) this.#send();
          }, BUSY_RETRY_MS).unref();
          return;
        }
        if (batch.written > 0) this.#torn = true;
        this.#drop(batch.lines, why(err));
        this.#next();
        return;
      }
      batch.written += n;
      if (batch.written < batch.buf.length) {
        this.#send();
        return;
      }
      this.#written();
      this.#next();
    });
  }

  #drop(lines: number, reason: string): void {
    this.#dropped += lines;
    if (this.#failure !== undefined) return;
    this.#failure = reason;
    if (this.#held) this.#heldFailure ??= reason;
    else this.#say(`paygate: cannot write the log (${reason}); log lines are dropped until it can be written again`);
  }

  #say(line: string): void {
    if (!this.#held) this.#report(line);
  }
}

function toStderr(line: string): void {
  try {
    writeSync(2, `${line}\n`);
  } catch {
    // stderr cannot be written either (the same full disk): nothing more to do.
  }
}

let stdoutDestination: LogDestination | undefined;

/** The one destination of the process's log lines, on standard output; flushed at exit. */
export function stdoutLog(): LogDestination {
  if (stdoutDestination === undefined) {
    const dest = new LogDestination(1);
    stdoutDestination = dest;
    process.on('exit', () => dest.flushSync());
  }
  return stdoutDestination;
}
