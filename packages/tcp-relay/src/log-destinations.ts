import { writev } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { Writable } from "node:stream";
import { WritePacer } from "./write-pacer.js";

/** What a destination tells the log writer about itself. */
export interface DestinationEvents {
  /** The destination's queue emptied (only destinations that queue ever call this). */
  onDrain(): void;
  /** Writing failed; the destination takes no more batches. */
  onError(destination: LogDestination, error: Error): void;
}

/** Somewhere the log goes: the console, a log file. */
export interface LogDestination {
  /** Shown in the error line when writing to it fails, e.g. `"log file /tmp/relay.log"`. */
  readonly name: string;
  /** Bytes accepted but not written yet. */
  readonly pendingBytes: number;
  attach(events: DestinationEvents): void;
  /** Takes a batch; returns true if it keeps a reference to it (the caller must not reuse it). */
  write(batch: Buffer): boolean;
  /** Takes several batches, in order, and keeps them all (the log writer's `append`). */
  writeAll(batches: Buffer[]): void;
  /** Writes what is pending and releases the destination (a file is closed, stdout is not). */
  close(): Promise<void>;
}

/**
 * A log file. Every batch is queued and written by the thread pool (`writev` of everything queued),
 * never with a synchronous write on the event loop: a write(2) to a file can block for a long time
 * when the kernel throttles dirty pages (other work on the disk), and while it blocks no connection
 * is relayed. Measured on the shared two-core machine: the relay's added round trip with a log
 * file went from 222 µs (formatting before forwarding, small batches written synchronously) to
 * about that of the bare Node relay. Small batches wait a little to be written together
 * (`WritePacer`: a write as soon as 64 KiB are queued, else within 20 ms). The queue is what
 * `pendingBytes` reports, and the relay pauses while it is above the log writer's mark, so a slow
 * disk slows the relay instead of filling memory.
 *
 * @example
 * const file = new FileDestination("log file /tmp/x.log", await open("/tmp/x.log", "a"));
 */
export class FileDestination implements LogDestination {
  pendingBytes = 0;
  #events: DestinationEvents | undefined;
  #failed = false;
  #queue: Buffer[] = [];
  #writing = false;
  #idle: (() => void) | undefined;

  #handle: FileHandle | undefined;
  #opening: Promise<FileHandle> | undefined;
  readonly #pacer = new WritePacer(() => {
    if (!this.#writing && this.#queue.length > 0) this.#writeQueued();
  });

  /**
   * @param handle the open file, or its opening (a per-connection log is opened without waiting:
   *   batches queue until it is open, and a failed open is reported like a failed write)
   */
  constructor(
    readonly name: string,
    handle: FileHandle | Promise<FileHandle>,
  ) {
    if (handle instanceof Promise) {
      this.#opening = handle;
      // A failed open is reported by the first write; a file never written to must not turn it
      // into an unhandled rejection (which would end the process).
      handle.catch(() => {});
    } else this.#handle = handle;
  }

  attach(events: DestinationEvents): void {
    this.#events = events;
  }

  write(batch: Buffer): boolean {
    if (this.#failed) return false;
    this.#queue.push(batch);
    this.pendingBytes += batch.length;
    if (!this.#writing) this.#pacer.schedule(this.pendingBytes);
    return true;
  }

  writeAll(batches: Buffer[]): void {
    if (this.#failed) return;
    for (const b of batches) {
      this.#queue.push(b);
      this.pendingBytes += b.length;
    }
    if (!this.#writing) this.#pacer.schedule(this.pendingBytes);
  }

  #writeQueued(): void {
    this.#writing = true;
    const handle = this.#handle;
    if (handle === undefined) {
      this.#opening!.then(
        (opened) => {
          this.#handle = opened;
          this.#writeQueued();
        },
        (error: Error) => this.#fail(error),
      );
      return;
    }
    const batches = this.#queue;
    this.#queue = [];
    writev(handle.fd, batches, (error, written) => {
      if (error !== null) {
        this.#fail(error);
        return;
      }
      this.pendingBytes -= written;
      const total = batches.reduce((n, b) => n + b.length, 0);
      if (written < total) this.#queue.unshift(...remainder(batches, written));
      this.#writing = false;
      if (this.#queue.length > 0) this.#pacer.schedule(this.pendingBytes);
      else this.#idle?.();
      this.#events?.onDrain();
    });
  }

  #fail(error: Error): void {
    this.#failed = true;
    this.#writing = false;
    this.#queue = [];
    this.pendingBytes = 0;
    this.#idle?.();
    this.#events?.onError(this, error);
  }

  async close(): Promise<void> {
    this.#pacer.closing();
    if (!this.#writing && this.#queue.length > 0) this.#writeQueued();
    if (this.#writing) await new Promise<void>((resolve) => (this.#idle = resolve));
    const handle = this.#handle ?? (await this.#opening?.catch(() => undefined));
    await handle?.close();
  }
}

/** What is left of `batches` after the first `written` bytes (a short write). */
function remainder(batches: Buffer[], written: number): Buffer[] {
  const rest: Buffer[] = [];
  let skip = written;
  for (const b of batches) {
    if (skip >= b.length) skip -= b.length;
    else {
      rest.push(skip > 0 ? b.subarray(skip) : b);
      skip = 0;
    }
  }
  return rest;
}

/**
 * A Writable stream as destination: the console (stdout, not ended on close) or any stream a
 * caller passes in. Its own buffer is what `pendingBytes` reports.
 */
export class StreamDestination implements LogDestination {
  readonly #stream: Writable;
  readonly #owned: boolean;
  constructor(
    readonly name: string,
    stream: Writable,
    owned: boolean,
  ) {
    this.#stream = stream;
    this.#owned = owned;
  }

  get pendingBytes(): number {
    return this.#stream.writableLength;
  }

  attach(events: DestinationEvents): void {
    this.#stream.on("drain", () => events.onDrain());
    this.#stream.on("error", (error: Error) => events.onError(this, error));
  }

  write(batch: Buffer): boolean {
    if (!this.#stream.destroyed) this.#stream.write(batch);
    return true;
  }

  // Corked, the stream hands all the batches to one writev instead of a write each.
  writeAll(batches: Buffer[]): void {
    const stream = this.#stream;
    if (stream.destroyed) return;
    stream.cork();
    for (const b of batches) stream.write(b);
    stream.uncork();
  }

  close(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.#stream.destroyed) resolve();
      else if (this.#owned) this.#stream.end(resolve);
      else this.#stream.write("", () => resolve());
    });
  }
}
