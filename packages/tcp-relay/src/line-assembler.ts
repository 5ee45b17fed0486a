import type { DirectionWriter } from "./direction-writer.js";
import type { EntryAssembler } from "./entry-assembler.js";
import { MAX_TEXT_ENTRY } from "./entry-writer.js";

const LF = 0x0a;

/**
 * Text mode: one entry per line (the LF not shown), lines longer than 142 bytes split into
 * 142-byte entries, each with its true stream offset. A partial line is held (at most 142 bytes)
 * until its LF, the length limit or the end of the direction, so one line is one entry whatever
 * the segmentation. A line of exactly k × 142 bytes and its LF gives k entries, not k + 1.
 *
 * @example
 * const sink = new MemorySink();
 * const lines = new LineAssembler(new EntryWriter(sink, "C-0-", "", null));
 * lines.push(Buffer.from("GET / HTTP/1.1\r\nHo"));
 * lines.push(Buffer.from("st: a\r\n"));
 * sink.text(); // "C-0-#000000 -> [GET / HTTP/1.1 ]\nC-0-#000016 -> [Host: a ]\n"
 */
export class LineAssembler implements EntryAssembler {
  /** Stream offset of the next byte to arrive. */
  #offset = 0;
  readonly #held = Buffer.allocUnsafe(MAX_TEXT_ENTRY);
  #heldLength = 0;
  #heldOffset = 0;
  /** The last entry was cut at the length limit right at a chunk's end: an LF next is its end. */
  #cutAtLimit = false;

  /** @param offset the stream offset of the first byte pushed (not 0 when a view hands over) */
  readonly #writer: DirectionWriter;
  constructor(writer: DirectionWriter, offset = 0) {
    this.#writer = writer;
    this.#offset = offset;
  }

  push(chunk: Buffer): void {
    const n = chunk.length;
    if (n === 0) return;
    const base = this.#offset;
    this.#offset += n;
    let i = 0;
    if (this.#cutAtLimit) {
      this.#cutAtLimit = false;
      if (chunk[0] === LF) i = 1;
    }
    if (this.#heldLength > 0) {
      i = this.#completeHeld(chunk, i);
      if (i < 0) return;
    }
    const writer = this.#writer;
    while (i < n) {
      const lf = chunk.indexOf(LF, i);
      const stop = lf === -1 ? n : lf;
      while (stop - i > MAX_TEXT_ENTRY) {
        writer.textEntry(chunk, i, i + MAX_TEXT_ENTRY, base + i);
        i += MAX_TEXT_ENTRY;
      }
      if (lf !== -1) {
        writer.textEntry(chunk, i, lf, base + i);
        i = lf + 1;
      } else if (n - i === MAX_TEXT_ENTRY) {
        writer.textEntry(chunk, i, n, base + i);
        this.#cutAtLimit = true;
        return;
      } else {
        this.#held.set(chunk.subarray(i, n), 0);
        this.#heldLength = n - i;
        this.#heldOffset = base + i;
        return;
      }
    }
  }

  /**
   * Continues the held partial line with `chunk[i..]`. Returns where the rest of the chunk starts,
   * or -1 when the whole chunk went into the (still partial) held line.
   */
  #completeHeld(chunk: Buffer, i: number): number {
    const room = MAX_TEXT_ENTRY - this.#heldLength;
    const n = chunk.length;
    const searchEnd = Math.min(n, i + room + 1);
    let lf = -1;
    for (let k = i; k < searchEnd; k++) {
      if (chunk[k] === LF) {
        lf = k;
        break;
      }
    }
    if (lf !== -1) {
      this.#held.set(chunk.subarray(i, lf), this.#heldLength);
      this.#writer.textEntry(this.#held, 0, this.#heldLength + lf - i, this.#heldOffset);
      this.#heldLength = 0;
      return lf + 1;
    }
    if (n - i < room) {
      this.#held.set(chunk.subarray(i, n), this.#heldLength);
      this.#heldLength += n - i;
      return -1;
    }
    // No LF within reach: the held line reaches the limit and is written as a full entry.
    this.#held.set(chunk.subarray(i, i + room), this.#heldLength);
    this.#writer.textEntry(this.#held, 0, MAX_TEXT_ENTRY, this.#heldOffset);
    this.#heldLength = 0;
    if (i + room === n) {
      this.#cutAtLimit = true;
      return -1;
    }
    return chunk[i + room] === LF ? i + room + 1 : i + room;
  }

  end(): void {
    if (this.#heldLength > 0) this.#writer.textEntry(this.#held, 0, this.#heldLength, this.#heldOffset);
    this.#heldLength = 0;
    this.#cutAtLimit = false;
  }
}
