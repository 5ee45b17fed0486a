/**
 * Where formatted log bytes go: a buffer the formatter writes into directly, from `pos` on.
 * Formatting straight into bytes (no intermediate strings) keeps the text-log hot path at one
 * pass over the relayed data.
 */
export interface ByteSink {
  /** The buffer to write into; valid from `pos` to `buf.length` after `reserve`. */
  buf: Buffer;
  /** The next free byte of `buf`. Writers advance it after writing. */
  pos: number;
  /** Makes room for at least `n` more bytes at `buf[pos..]` (may hand off and replace `buf`). */
  reserve(n: number): void;
}

/**
 * A growable in-memory sink: what the unit tests and golden tests collect entries with.
 *
 * @example
 * const sink = new MemorySink();
 * sink.reserve(2); sink.buf[sink.pos++] = 0x68; sink.buf[sink.pos++] = 0x69;
 * sink.text(); // "hi"
 */
export class MemorySink implements ByteSink {
  buf = Buffer.alloc(256);
  pos = 0;

  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = Buffer.alloc(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  /** Appends `bytes` (copied: the tests' sink keeps nothing it is handed). */
  append(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** Everything written so far, as latin1 text (the log is ASCII apart from error messages). */
  text(): string {
    return this.buf.toString("latin1", 0, this.pos);
  }
}
