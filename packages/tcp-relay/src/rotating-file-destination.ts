import { type FileHandle, open, rename, stat } from "node:fs/promises";
import type { DestinationEvents, LogDestination } from "./log-destinations.js";
import { WritePacer } from "./write-pacer.js";

const LF = 0x0a;

/**
 * A log file rotated at a size (`-logsize` with `-logcount`): when the next entry would take the
 * file past `maxBytes`, `name` becomes `name.1`, `name.1` becomes `name.2`, ... up to
 * `name.<count>` (the oldest beyond it is dropped), and a new `name` is started. Batches hold whole
 * entries (lines), and a batch is cut only after an LF, so no entry is ever split between two
 * files; an entry longer than `maxBytes` gets a file of its own. Batches are queued and written in
 * order by the thread pool, renames included, and paced like `FileDestination`'s (`WritePacer`).
 *
 * @example
 * const file = await RotatingFileDestination.open("/var/log/relay.log", 10_000_000, 5);
 */
export class RotatingFileDestination implements LogDestination {
  pendingBytes = 0;
  readonly name: string;
  #events: DestinationEvents | undefined;
  #queue: Buffer[] = [];
  #writing = false;
  #failed = false;
  #idle: (() => void) | undefined;

  #handle: FileHandle;
  #size: number;
  readonly #pacer = new WritePacer(() => {
    if (!this.#writing && this.#queue.length > 0) void this.#drain();
  });
  private constructor(
    readonly path: string,
    handle: FileHandle,
    size: number,
    readonly maxBytes: number,
    readonly count: number,
  ) {
    this.#handle = handle;
    this.#size = size;
    this.name = `log file ${path}`;
  }

  /** Opens `path` for appending; its present size counts toward the first rotation. */
  static async open(path: string, maxBytes: number, count: number): Promise<RotatingFileDestination> {
    const handle = await open(path, "a");
    const size = (await stat(path)).size;
    return new RotatingFileDestination(path, handle, size, maxBytes, count);
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
    for (const b of batches) this.write(b);
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#queue.length > 0) {
        // Everything queued in one write: the small batches of a quiet relay are gathered by the
        // pacer, and one trip through the thread pool each would undo that.
        const queued = this.#queue;
        this.#queue = [];
        const batch = queued.length === 1 ? queued[0]! : Buffer.concat(queued);
        await this.#writeBatch(batch);
        this.pendingBytes -= batch.length;
      }
    } catch (error) {
      this.#failed = true;
      this.#queue = [];
      this.pendingBytes = 0;
      this.#writing = false;
      this.#idle?.();
      this.#events?.onError(this, error as Error);
      return;
    }
    this.#writing = false;
    this.#idle?.();
    this.#events?.onDrain();
  }

  async #writeBatch(batch: Buffer): Promise<void> {
    let rest = batch;
    while (rest.length > 0) {
      const room = this.maxBytes - this.#size;
      if (rest.length <= room) {
        await this.#append(rest);
        return;
      }
      // The longest run of whole entries that fits; an entry alone larger than the limit is
      // written whole into a fresh file rather than split.
      let cut = room > 0 ? rest.lastIndexOf(LF, room - 1) + 1 : 0;
      if (cut === 0 && this.#size === 0) cut = rest.indexOf(LF) + 1 || rest.length;
      if (cut > 0) {
        await this.#append(rest.subarray(0, cut));
        rest = rest.subarray(cut);
      }
      if (rest.length > 0 || this.#size >= this.maxBytes) await this.#rotate();
    }
  }

  async #append(bytes: Buffer): Promise<void> {
    for (let done = 0; done < bytes.length; ) {
      const { bytesWritten } = await this.#handle.write(bytes, done, bytes.length - done);
      done += bytesWritten;
    }
    this.#size += bytes.length;
  }

  async #rotate(): Promise<void> {
    await this.#handle.close();
    for (let k = this.count - 1; k >= 1; k--) {
      await rename(`${this.path}.${k}`, `${this.path}.${k + 1}`).catch(ignoreMissing);
    }
    await rename(this.path, `${this.path}.1`);
    this.#handle = await open(this.path, "a");
    this.#size = 0;
  }

  async close(): Promise<void> {
    this.#pacer.closing();
    if (!this.#writing && this.#queue.length > 0) void this.#drain();
    if (this.#writing) await new Promise<void>((resolve) => (this.#idle = resolve));
    await this.#handle.close();
  }
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== "ENOENT") throw error;
}
