import type { ByteSink } from "./byte-sink.js";
import type { LogDestination } from "./log-destinations.js";

/** Something paused because the log could not keep up: a direction of a connection. */
export interface LogWaiter {
  resumeFromLog(): void;
}

export interface LogWriterOptions {
  /** Size of the batch buffer; a batch is handed to the destinations when it is full. */
  batchBytes?: number;
  /** Bytes queued in any destination above which the log counts as congested. */
  highWaterMark?: number;
  /** Called once when a destination fails; the log goes on to the other destinations. */
  onError?: (destination: LogDestination, error: Error) => void;
}

// After a flush the rest of the batch buffer is reused (the written part is a disjoint slice that
// the destination now owns) unless less than this is left.
const MIN_REUSABLE = 4096;

/**
 * The batched log writer: formatters write entries straight into its buffer, which is handed to
 * every destination when full or at the end of the event-loop turn, whichever comes first, so a
 * person watching the console sees entries at once but the log never costs a write per entry.
 * When a destination falls behind by more than `highWaterMark`, `congested` turns true and the
 * relay pauses its sockets until the destinations drain: the log slows traffic down rather than
 * dropping entries or growing without bound.
 *
 * @example
 * const log = new LogWriter([new StreamDestination("the console", process.stdout, false)]);
 * log.writeText("starting proxy for example.com:80 on port 8080\n");
 * await log.close();
 */
export class LogWriter implements ByteSink {
  buf: Buffer;
  pos = 0;
  readonly #batchBytes: number;
  readonly #highWaterMark: number;
  readonly #onError: LogWriterOptions["onError"];
  #destinations: LogDestination[];
  #waiters: LogWaiter[] = [];
  #flushScheduled = false;
  /** What `append` handed over and the batch parts before it, in order, not flushed yet. */
  #parts: Buffer[] = [];
  #partBytes = 0;

  constructor(destinations: LogDestination[], options: LogWriterOptions = {}) {
    this.#batchBytes = options.batchBytes ?? 64 * 1024;
    this.#highWaterMark = options.highWaterMark ?? 4 * 1024 * 1024;
    this.#onError = options.onError;
    this.#destinations = destinations;
    this.buf = Buffer.allocUnsafe(this.#batchBytes);
    const events = {
      onDrain: this.#onDrain,
      onError: (d: LogDestination, e: Error) => this.#dropDestination(d, e),
    };
    for (const d of destinations) d.attach(events);
  }

  reserve(n: number): void {
    if (this.pos + n > this.buf.length) {
      this.flush();
      if (this.buf.length < n) this.buf = Buffer.allocUnsafe(Math.max(n, this.#batchBytes));
    }
    if (!this.#flushScheduled) this.flushAtTurnEnd();
  }

  /**
   * Schedules the end-of-turn flush now. Entries formatted in a `setImmediate` (the relay's
   * `ChunkLogQueue`) would otherwise schedule it from the check phase, which puts it in the next
   * turn, one more trip round the event loop per relayed chunk: scheduled when the chunk is
   * queued, it runs right after the queue has been drained.
   */
  flushAtTurnEnd(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(this.#onTurnEnd);
  }

  /** Appends a rare line (start-up, error) as UTF-8. */
  writeText(text: string): void {
    const bytes = Buffer.from(text, "utf8");
    this.reserve(bytes.length);
    this.pos += bytes.copy(this.buf, this.pos);
  }

  /**
   * Appends `bytes` without copying them: they are handed to the destinations as they are, after
   * what is in the batch so far, so the caller must not change them afterwards. For the capture's
   * payloads, the relayed chunks themselves, whose copy would cost as much as relaying them.
   */
  append(bytes: Buffer): void {
    if (this.pos > 0) this.#cutPart();
    this.#parts.push(bytes);
    this.#partBytes += bytes.length;
    if (this.#partBytes >= this.#batchBytes) this.flush();
    else if (!this.#flushScheduled) this.flushAtTurnEnd();
  }

  /** Moves the batch so far into `#parts`; the rest of the buffer takes what follows. */
  #cutPart(): void {
    this.#parts.push(this.buf.subarray(0, this.pos));
    this.#partBytes += this.pos;
    this.buf =
      this.buf.length - this.pos >= MIN_REUSABLE
        ? this.buf.subarray(this.pos)
        : Buffer.allocUnsafe(this.#batchBytes);
    this.pos = 0;
  }

  /** Hands the current batch to every destination now. */
  flush(): void {
    if (this.#parts.length > 0) {
      if (this.pos > 0) this.#cutPart();
      const parts = this.#parts;
      this.#parts = [];
      this.#partBytes = 0;
      for (const d of this.#destinations) d.writeAll(parts);
      return;
    }
    if (this.pos === 0) return;
    const batch = this.buf.subarray(0, this.pos);
    let retained = false;
    for (const d of this.#destinations) if (d.write(batch)) retained = true;
    // A batch nobody kept (written synchronously) leaves the whole buffer reusable.
    this.buf = !retained
      ? this.buf
      : this.buf.length - this.pos >= MIN_REUSABLE
        ? this.buf.subarray(this.pos)
        : Buffer.allocUnsafe(this.#batchBytes);
    this.pos = 0;
  }

  /** True while some destination has more than `highWaterMark` bytes queued. */
  get congested(): boolean {
    for (const d of this.#destinations) if (d.pendingBytes > this.#highWaterMark) return true;
    return false;
  }

  /** Calls `waiter.resumeFromLog()` once the log is no longer congested. */
  waitForDrain(waiter: LogWaiter): void {
    this.#waiters.push(waiter);
    if (!this.congested) queueMicrotask(this.#onDrain);
  }

  /** Flushes, closes the destinations and waits until everything has been written. */
  async close(): Promise<void> {
    this.flush();
    await Promise.all(this.#destinations.map((d) => d.close()));
  }

  readonly #onTurnEnd = (): void => {
    this.#flushScheduled = false;
    this.flush();
  };

  readonly #onDrain = (): void => {
    if (this.#waiters.length === 0 || this.congested) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w.resumeFromLog();
  };

  #dropDestination(d: LogDestination, error: Error): void {
    if (!this.#destinations.includes(d)) return;
    this.#destinations = this.#destinations.filter((x) => x !== d);
    this.#onError?.(d, error);
    this.#onDrain();
  }
}
