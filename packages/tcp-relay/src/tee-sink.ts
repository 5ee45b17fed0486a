import type { ByteSink } from "./byte-sink.js";

/**
 * Writes into `main` and copies every finished entry to `copy` (`-connlogs`: the relay's log and
 * the connection's own file get the same lines). Writers set `pos` once per entry, which is when
 * the new bytes are copied; entries are formatted once.
 *
 * @example
 * const tee = new TeeSink(relayLog, connectionLog);
 * new EntryWriter(tee, "C-0-", "", null).textEntry(chunk, 0, chunk.length, 0); // in both
 */
export class TeeSink implements ByteSink {
  readonly #main: ByteSink;
  readonly #copy: ByteSink;
  constructor(main: ByteSink, copy: ByteSink) {
    this.#main = main;
    this.#copy = copy;
  }

  get buf(): Buffer {
    return this.#main.buf;
  }

  get pos(): number {
    return this.#main.pos;
  }

  set pos(p: number) {
    const start = this.#main.pos;
    const n = p - start;
    const copy = this.#copy;
    copy.reserve(n);
    copy.pos += this.#main.buf.copy(copy.buf, copy.pos, start, p);
    this.#main.pos = p;
  }

  reserve(n: number): void {
    this.#main.reserve(n);
  }
}
