import type { DirectionWriter } from "./direction-writer.js";
import type { EntryAssembler } from "./entry-assembler.js";
import { HEX_ENTRY_BYTES } from "./entry-writer.js";

/**
 * Binary mode (`-b`): one entry per 16 bytes of the stream, fewer only at the end of the
 * direction. A short tail of a chunk is held (at most 15 bytes) so that entries do not depend
 * on the segmentation.
 *
 * @example
 * const sink = new MemorySink();
 * const hex = new HexFormatter(new EntryWriter(sink, "C-0-", "", null));
 * hex.push(Buffer.from("GET / HTTP/1.1\r\n"));
 * sink.text(); // "C-0-#000000 -> [47 45 54 20 2F 20 48 54 54 50 2F 31 2E 31 0D 0A  GET / HTTP/1.1..]\n"
 */
export class HexFormatter implements EntryAssembler {
  #offset = 0;
  readonly #held = Buffer.allocUnsafe(HEX_ENTRY_BYTES);
  #heldLength = 0;

  /** @param offset the stream offset of the first byte pushed (not 0 when a view hands over) */
  readonly #writer: DirectionWriter;
  constructor(writer: DirectionWriter, offset = 0) {
    this.#writer = writer;
    this.#offset = offset;
  }

  push(chunk: Buffer): void {
    const n = chunk.length;
    let i = 0;
    if (this.#heldLength > 0) {
      const take = Math.min(HEX_ENTRY_BYTES - this.#heldLength, n);
      this.#held.set(chunk.subarray(0, take), this.#heldLength);
      this.#heldLength += take;
      i = take;
      if (this.#heldLength < HEX_ENTRY_BYTES) return;
      this.#writer.hexEntry(this.#held, 0, HEX_ENTRY_BYTES, this.#offset);
      this.#offset += HEX_ENTRY_BYTES;
      this.#heldLength = 0;
    }
    const writer = this.#writer;
    for (; n - i >= HEX_ENTRY_BYTES; i += HEX_ENTRY_BYTES) {
      writer.hexEntry(chunk, i, i + HEX_ENTRY_BYTES, this.#offset);
      this.#offset += HEX_ENTRY_BYTES;
    }
    if (i < n) {
      this.#held.set(chunk.subarray(i, n), 0);
      this.#heldLength = n - i;
    }
  }

  end(): void {
    if (this.#heldLength > 0) this.#writer.hexEntry(this.#held, 0, this.#heldLength, this.#offset);
    this.#offset += this.#heldLength;
    this.#heldLength = 0;
  }
}
