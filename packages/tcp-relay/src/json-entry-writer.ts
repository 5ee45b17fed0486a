import type { ByteSink } from "./byte-sink.js";
import type { DirectionWriter, DroppedBytes } from "./direction-writer.js";
import { HEX_HIGH, HEX_LOW, TEXT_CHAR } from "./entry-writer.js";
import { type Fault, faultFields } from "./fault-spec.js";
import type { IsoTimestamp } from "./timestamp.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
// Time, the fixed keys and a 16-digit offset; the content is counted apart.
const FIXED_OVERHEAD = 128;
// The text log's character for each byte, except 0 for the two that JSON escapes (`"` and `\`),
// so that the per-byte loop tests one value instead of two.
const JSON_TEXT_CHAR = Uint8Array.from(TEXT_CHAR);
JSON_TEXT_CHAR[QUOTE] = 0;
JSON_TEXT_CHAR[BACKSLASH] = 0;

/**
 * The JSON-lines form of one direction's log (`-json`): one object per entry,
 * `{"time":"…Z","type":"entry","conn":0,"dir":"C","pos":0,"text":"GET / HTTP/1.1 "}`, with `hex`
 * instead of `text` in binary mode. The content is the text log's (printable ASCII, CR as a space,
 * the rest as "."), so the only characters JSON must escape are `"` and `\`: entries are written
 * straight into the batch in one pass, like the text log's.
 *
 * @example
 * const sink = new MemorySink();
 * const time = new IsoTimestamp(() => 0);
 * time.refresh();
 * new JsonEntryWriter(sink, 0, "C", time).textEntry(Buffer.from("hi"), 0, 2, 0);
 * sink.text(); // '{"time":"1970-01-01T00:00:00.000Z","type":"entry","conn":0,"dir":"C","pos":0,"text":"hi"}\n'
 */
export class JsonEntryWriter implements DirectionWriter {
  readonly #start = Buffer.from('{"time":"', "latin1");
  readonly #entryKeys: Buffer;
  readonly #textKey = Buffer.from(',"text":"', "latin1");
  readonly #hexKey = Buffer.from(',"hex":"', "latin1");
  readonly #sink: ByteSink;
  readonly #time: IsoTimestamp;

  constructor(
    sink: ByteSink,
    readonly conn: number,
    readonly dir: "C" | "S",
    time: IsoTimestamp,
  ) {
    this.#sink = sink;
    this.#time = time;
    this.#entryKeys = Buffer.from(`","type":"entry","conn":${conn},"dir":"${dir}","pos":`, "latin1");
  }

  /** `{"time":"<time>","type":"entry","conn":n,"dir":"D","pos":` for the time it was built for. */
  #prefix = Buffer.alloc(0);
  #prefixTime: Buffer | null = null;

  #head(buf: Buffer, p: number, offset: number, key: Buffer): number {
    const time = this.#time.bytes;
    if (time !== this.#prefixTime) {
      // Rebuilt at most once per millisecond (the time's bytes are replaced when it changes), so
      // each entry copies one ready prefix.
      this.#prefix = Buffer.concat([this.#start, time, this.#entryKeys]);
      this.#prefixTime = time;
    }
    const prefix = this.#prefix;
    buf.set(prefix, p);
    p = writeDecimal(buf, p + prefix.length, offset);
    return copySmall(key, buf, p);
  }

  textEntry(src: Uint8Array, start: number, end: number, offset: number): void {
    this.#sink.reserve(FIXED_OVERHEAD + 2 * (end - start));
    const sink = this.#sink;
    const buf = sink.buf;
    let p = this.#head(buf, sink.pos, offset, this.#textKey);
    const shown = JSON_TEXT_CHAR;
    for (let k = start; k < end; k++) {
      let c = shown[src[k]!]!;
      if (c === 0) {
        buf[p++] = BACKSLASH;
        c = src[k]!;
      }
      buf[p++] = c;
    }
    sink.pos = closeObject(buf, p);
  }

  hexEntry(src: Uint8Array, start: number, end: number, offset: number): void {
    this.#sink.reserve(FIXED_OVERHEAD + 3 * (end - start));
    const sink = this.#sink;
    const buf = sink.buf;
    let p = this.#head(buf, sink.pos, offset, this.#hexKey);
    for (let k = start; k < end; k++) {
      const b = src[k]!;
      if (k > start) buf[p++] = 0x20;
      buf[p++] = HEX_HIGH[b]!;
      buf[p++] = HEX_LOW[b]!;
    }
    sink.pos = closeObject(buf, p);
  }

  finished(bytes: number, rate: string, faults?: Record<string, number>): void {
    const counts =
      faults === undefined || Object.keys(faults).length === 0 ? "" : `,"faults":${JSON.stringify(faults)}`;
    this.line(
      `"type":"finished","conn":${this.conn},"dir":"${this.dir}","bytes":${bytes},"kbps":${rate}${counts}`,
    );
  }

  fault(conn: number, side: string, kind: string, fault: Fault | null, dropped: DroppedBytes | null): void {
    this.#time.refresh();
    const params = fault === null ? "" : `,${faultFields(fault)}`;
    const what = dropped === null ? "" : `,"dropped":${dropped.dropped},"at":${dropped.at}`;
    this.line(`"type":"fault","conn":${conn},"dir":"${side}","fault":"${kind}"${params}${what}`);
  }

  connectError(message: string): void {
    this.line(`"type":"error","conn":${this.conn},"dir":"${this.dir}","message":${JSON.stringify(message)}`);
  }

  /** A rare object built as a string: `{"time":"…",` + `fields` + `}`. */
  line(fields: string): void {
    writeJsonLine(this.#sink, this.#time.bytes.toString("latin1"), fields);
  }
}

/** Appends `{"time":"<time>",<fields>}\n` to the sink (UTF-8). */
export function writeJsonLine(sink: ByteSink, time: string, fields: string): void {
  const bytes = Buffer.from(`{"time":"${time}",${fields}}\n`, "utf8");
  sink.reserve(bytes.length);
  sink.pos += bytes.copy(sink.buf, sink.pos);
}

function copySmall(from: Buffer, buf: Buffer, p: number): number {
  for (let k = 0; k < from.length; k++) buf[p++] = from[k]!;
  return p;
}

function closeObject(buf: Buffer, p: number): number {
  buf[p] = QUOTE;
  buf[p + 1] = 0x7d; // }
  buf[p + 2] = 0x0a;
  return p + 3;
}

/** Writes a non-negative integer in decimal; returns the new position. */
function writeDecimal(buf: Buffer, p: number, value: number): number {
  let digits = 1;
  for (let limit = 10; value >= limit && digits < 16; limit *= 10) digits++;
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
