import type { ByteSink } from "./byte-sink.js";
import type { DirectionWriter, DroppedBytes } from "./direction-writer.js";
import { describeFault, type Fault } from "./fault-spec.js";
import type { TimestampPrefix } from "./timestamp.js";

/** The classic tool splits a line longer than this many bytes into several entries. */
export const MAX_TEXT_ENTRY = 142;
/** Bytes per entry in binary mode (`-b`). */
export const HEX_ENTRY_BYTES = 16;

// Byte -> shown character, decided once: printable ASCII as is, CR as a space in text mode, the
// rest as "." (binary mode shows CR as "." too, as in the classic tool's `0D 0A  ..`).
export const TEXT_CHAR = new Uint8Array(256).fill(0x2e);
export const HEX_CHAR = new Uint8Array(256).fill(0x2e);
for (let b = 0x20; b < 0x7f; b++) {
  TEXT_CHAR[b] = b;
  HEX_CHAR[b] = b;
}
TEXT_CHAR[0x0d] = 0x20;
export const HEX_HIGH = new Uint8Array(256);
export const HEX_LOW = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  HEX_HIGH[b] = "0123456789ABCDEF".charCodeAt(b >> 4);
  HEX_LOW[b] = "0123456789ABCDEF".charCodeAt(b & 15);
}

// The longest entry prefix besides indent and timestamp: label, a 16-digit offset, the arrow.
const FIXED_OVERHEAD = 64;
const HEX_CONTENT = HEX_ENTRY_BYTES * 3 - 1 + 2 + HEX_ENTRY_BYTES;

/**
 * Writes the entries of one direction of one connection — `[ts] C-0-#000000 -> [content]` — as
 * bytes into a sink. The per-connection parts (indent, label) are built once here, so that each
 * entry costs one pass over its bytes.
 *
 * @example
 * const sink = new MemorySink();
 * const w = new EntryWriter(sink, "C-0-", "", null);
 * w.textEntry(Buffer.from("GET / HTTP/1.1\r"), 0, 15, 0);
 * sink.text(); // "C-0-#000000 -> [GET / HTTP/1.1 ]\n"
 */
export class EntryWriter implements DirectionWriter {
  readonly #label: Buffer;
  readonly #indent: Buffer;

  /**
   * @param label the entry label without the offset, e.g. `"C-0-"`
   * @param indent the spaces that put this connection in its slot (`""` for none)
   * @param stamp the shared timestamp prefix with `-t`, else null
   */
  readonly #sink: ByteSink;
  readonly #stamp: TimestampPrefix | null;
  constructor(
    sink: ByteSink,
    readonly labelText: string,
    readonly indentText: string,
    stamp: TimestampPrefix | null,
  ) {
    this.#sink = sink;
    this.#stamp = stamp;
    this.#label = Buffer.from(`${labelText}#`, "latin1");
    this.#indent = Buffer.from(indentText, "latin1");
  }

  /**
   * Writes indent, timestamp and label; returns the new write position. Byte loops rather than
   * `Buffer#copy`: for a few bytes the native call costs more than the copy (measured: the hex
   * formatter went from 83 to over 200 MB/s with this and the other small-copy loops).
   */
  #head(buf: Buffer, p: number): number {
    const indent = this.#indent;
    for (let k = 0; k < indent.length; k++) buf[p++] = indent[k]!;
    if (this.#stamp !== null) {
      const stamp = this.#stamp.bytes;
      for (let k = 0; k < stamp.length; k++) buf[p++] = stamp[k]!;
    }
    const label = this.#label;
    for (let k = 0; k < label.length; k++) buf[p++] = label[k]!;
    return p;
  }

  #reserveFor(contentBytes: number): void {
    const stampBytes = this.#stamp === null ? 0 : this.#stamp.bytes.length;
    this.#sink.reserve(this.#indent.length + stampBytes + FIXED_OVERHEAD + contentBytes);
  }

  /** One text-mode entry for `src[start..end)`, whose first byte is at stream offset `offset`. */
  textEntry(src: Uint8Array, start: number, end: number, offset: number): void {
    this.#reserveFor(end - start);
    const sink = this.#sink;
    const buf = sink.buf;
    let p = writeArrow(buf, writeOffset(buf, this.#head(buf, sink.pos), offset));
    for (let k = start; k < end; k++) buf[p++] = TEXT_CHAR[src[k]!]!;
    buf[p++] = 0x5d; // ]
    buf[p++] = 0x0a;
    sink.pos = p;
  }

  /** One binary-mode entry (at most 16 bytes): hex padded to the width of 16, two spaces, chars. */
  hexEntry(src: Uint8Array, start: number, end: number, offset: number): void {
    this.#reserveFor(HEX_CONTENT);
    const sink = this.#sink;
    const buf = sink.buf;
    let p = writeArrow(buf, writeOffset(buf, this.#head(buf, sink.pos), offset));
    // "XX " per byte, "   " per missing byte: 48 columns, and one more space makes the two
    // spaces between the hex (47 columns wide) and the characters.
    for (let k = start; k < end; k++) {
      const b = src[k]!;
      buf[p] = HEX_HIGH[b]!;
      buf[p + 1] = HEX_LOW[b]!;
      buf[p + 2] = 0x20;
      p += 3;
    }
    for (let k = end - start; k < HEX_ENTRY_BYTES; k++) {
      buf[p] = 0x20;
      buf[p + 1] = 0x20;
      buf[p + 2] = 0x20;
      p += 3;
    }
    buf[p++] = 0x20;
    for (let k = start; k < end; k++) buf[p++] = HEX_CHAR[src[k]!]!;
    buf[p++] = 0x5d;
    buf[p++] = 0x0a;
    sink.pos = p;
  }

  finished(bytes: number, rate: string): void {
    this.notice(`Finished: ${bytes} bytes (${rate} kb/s)`);
  }

  connectError(message: string): void {
    this.notice(`Error: ${message}`);
  }

  fault(conn: number, side: string, kind: string, fault: Fault | null, dropped: DroppedBytes | null): void {
    this.#stamp?.refresh();
    const params = fault === null ? "" : ` ${describeFault(fault)}`;
    const what =
      dropped === null
        ? ""
        : `: dropped ${dropped.dropped} bytes from #${String(dropped.at).padStart(6, "0")} on`;
    this.#line(`F-${conn}-${side}-${kind}${params}${what}`);
  }

  /**
   * A line about this direction that is not an entry — `C-0-Finished: ...`, `S-0-Error: ...` —
   * with the same indent and timestamp as the entries.
   */
  notice(text: string): void {
    this.#line(`${this.labelText}${text}`);
  }

  /** A whole line with this connection's indent and timestamp. */
  #line(text: string): void {
    const body = Buffer.from(`${text}\n`, "utf8");
    this.#reserveFor(body.length);
    const sink = this.#sink;
    let p = this.#indent.copy(sink.buf, sink.pos);
    p += sink.pos;
    if (this.#stamp !== null) p += this.#stamp.bytes.copy(sink.buf, p);
    sink.pos = p + body.copy(sink.buf, p);
  }
}

/** Writes " -> [" and returns the new position. */
function writeArrow(buf: Buffer, p: number): number {
  buf[p] = 0x20;
  buf[p + 1] = 0x2d;
  buf[p + 2] = 0x3e;
  buf[p + 3] = 0x20;
  buf[p + 4] = 0x5b;
  return p + 5;
}

/** Writes `value` in decimal, zero-padded to at least six digits; returns the new position. */
export function writeOffset(buf: Buffer, p: number, value: number): number {
  let digits = 6;
  for (let limit = 1_000_000; value >= limit && digits < 16; limit *= 10) digits++;
  let v = value;
  let k = p + digits - 1;
  // Integer division while the value fits in 31 bits (the first 2 GiB of a stream), doubles after.
  for (; v > 0x7fffffff; k--) {
    const q = Math.floor(v / 10);
    buf[k] = 0x30 + (v - q * 10);
    v = q;
  }
  for (; k >= p; k--) {
    const q = (v / 10) | 0;
    buf[k] = 0x30 + (v - q * 10);
    v = q;
  }
  return p + digits;
}
