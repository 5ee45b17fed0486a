import { once } from "node:events";
import { closeSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { DestinationEvents, LogDestination } from "./log-destinations.js";
import {
  CLOSING,
  CONSUMED,
  CONTROL_WORDS,
  DRAINED_BYTES,
  type PipeWriterData,
  type PipeWriterMessage,
  PRODUCED,
  RING_BYTES,
  RING_MASK,
  ringUsed,
  STATE,
  WAKE,
  WANT_DRAIN,
} from "./pipe-ring.js";
import { PIPE_WRITER_THREAD } from "./pipe-writer-thread.js";

/**
 * A live capture's pipe (standard output into `| wireshark -k -i -`, a FIFO), written by a thread
 * of its own : each batch the log writer hands over is copied into a
 * shared ring and the thread (`PIPE_WRITER_THREAD`) is woken; the pipe's write(2) calls, and the waits for its reader,
 * happen there. Measured on the shared two-core machine, writing 1 GiB into `| cat >/dev/null`
 * from the event loop as a stream socket cost 0.20 s of CPU, with blocking writes 0.11 s, and the
 * copy into the ring 0.05 s: the relay's own thread keeps only the copy (bench/NOTES.md). What
 * does not fit in the ring waits in a list (`pendingBytes` counts both), and the log writer
 * pauses the relay above its mark, so a reader that stops reading stops the relay rather than
 * filling memory. The descriptor is closed once the thread has ended.
 *
 * @example
 * const pipe = new PipeWriterDestination("the capture on standard output", openSync("/dev/stdout", O_WRONLY | O_NONBLOCK));
 */
export class PipeWriterDestination implements LogDestination {
  readonly #ring: Buffer;
  readonly #control: Int32Array;
  readonly #thread: Worker;
  readonly #ended: Promise<unknown>;
  /** PRODUCED as this side last stored it. */
  #produced = 0;
  /** Batches (or their rest) that did not fit in the ring, in order. */
  #waiting: Buffer[] = [];
  #waitingBytes = 0;
  #events: DestinationEvents | undefined;
  #failed = false;
  /** Called when the ring has room again (`close` waiting for `#waiting` to go in). */
  #onRoom: (() => void) | undefined;

  constructor(
    readonly name: string,
    fd: number,
  ) {
    const ring = new SharedArrayBuffer(RING_BYTES);
    const control = new SharedArrayBuffer(CONTROL_WORDS * 4);
    this.#ring = Buffer.from(ring);
    this.#control = new Int32Array(control);
    const data: PipeWriterData = { fd, ring, control };
    this.#thread = new Worker(PIPE_WRITER_THREAD, { eval: true, workerData: data });
    // Closed here, where it was opened: Node warns when a thread closes a descriptor it did not open.
    this.#ended = once(this.#thread, "exit").then(() => {
      try {
        closeSync(fd);
      } catch {
        // Already closed: nothing left to release.
      }
    });
    // A relay that is not closing is kept alive by its server, not by this thread.
    this.#thread.unref();
    this.#thread.on("message", this.#onMessage);
    this.#thread.on("error", (error: Error) => this.#fail(error));
  }

  get pendingBytes(): number {
    return ringUsed(this.#control) + this.#waitingBytes;
  }

  attach(events: DestinationEvents): void {
    this.#events = events;
  }

  write(batch: Buffer): boolean {
    if (this.#failed) return false;
    const kept = this.#put(batch);
    this.#wake();
    return kept;
  }

  writeAll(batches: Buffer[]): void {
    if (this.#failed) return;
    for (const b of batches) this.#put(b);
    this.#wake();
  }

  /** Copies `batch` into the ring, or what does not fit into the waiting list (true: kept). */
  #put(batch: Buffer): boolean {
    if (this.#waiting.length > 0) {
      this.#wait(batch);
      return true;
    }
    const free = RING_BYTES - ((this.#produced - Atomics.load(this.#control, CONSUMED)) >>> 0);
    const n = Math.min(free, batch.length);
    const start = this.#produced & RING_MASK;
    const first = Math.min(n, RING_BYTES - start);
    batch.copy(this.#ring, start, 0, first);
    if (n > first) batch.copy(this.#ring, 0, first, n);
    this.#produced = (this.#produced + n) | 0;
    if (n === batch.length) return false;
    this.#wait(batch.subarray(n));
    return true;
  }

  #wait(rest: Buffer): void {
    this.#waiting.push(rest);
    this.#waitingBytes += rest.length;
  }

  /** Publishes what was copied and wakes the thread. */
  #wake(): void {
    const control = this.#control;
    Atomics.store(control, PRODUCED, this.#produced);
    Atomics.add(control, WAKE, 1);
    Atomics.notify(control, WAKE);
    this.#askForRoom();
  }

  /**
   * While the ring is fuller than `DRAINED_BYTES` (or batches wait outside it), asks the thread to
   * say when it is not. Done after every change on this side, and again after each "drained":
   * the thread may have said so from counters that this side changed in the meantime.
   */
  #askForRoom(): void {
    const control = this.#control;
    if (this.#waitingBytes === 0 && ringUsed(control) <= DRAINED_BYTES) return;
    Atomics.store(control, WANT_DRAIN, 1);
    // The thread may have emptied the ring before the flag was set: then nobody would say so.
    if (ringUsed(control) <= DRAINED_BYTES && Atomics.compareExchange(control, WANT_DRAIN, 1, 0) === 1) {
      queueMicrotask(this.#onDrained);
    }
  }

  readonly #onMessage = (message: PipeWriterMessage): void => {
    if (message === "drained") this.#onDrained();
    else {
      const error = new Error(message.error.message) as NodeJS.ErrnoException;
      error.code = message.error.code;
      this.#fail(error);
    }
  };

  readonly #onDrained = (): void => {
    if (this.#failed) return;
    if (this.#waiting.length > 0) {
      const waiting = this.#waiting;
      this.#waiting = [];
      this.#waitingBytes = 0;
      for (const b of waiting) this.#put(b);
      this.#wake();
    } else this.#askForRoom();
    if (this.#waiting.length === 0) this.#onRoom?.();
    this.#events?.onDrain();
  };

  #fail(error: Error): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#waiting = [];
    this.#waitingBytes = 0;
    this.#onRoom?.();
    this.#events?.onError(this, error);
  }

  /** Writes everything (the thread empties the ring, then closes the pipe) and waits for the thread. */
  async close(): Promise<void> {
    // Kept alive until the last byte is in the pipe.
    this.#thread.ref();
    if (this.#waiting.length > 0 && !this.#failed) {
      await new Promise<void>((resolve) => {
        this.#onRoom = resolve;
      });
    }
    Atomics.store(this.#control, STATE, CLOSING);
    Atomics.add(this.#control, WAKE, 1);
    Atomics.notify(this.#control, WAKE);
    await this.#ended;
  }
}
