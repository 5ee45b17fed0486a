import type { ByteSink } from "./byte-sink.js";
import { writeJsonLine } from "./json-entry-writer.js";
import type { IsoTimestamp, TimestampPrefix } from "./timestamp.js";

/** One request and what became of it, as the `-http` view reports it. */
export interface HttpExchange {
  conn: number;
  /** 1 for the first request on the connection, +1 for each next (the keep-alive count). */
  seq: number;
  method: string;
  target: string;
  /** Final status; null when the connection closed without one. */
  status: number | null;
  /** Body bytes (chunked coding removed). */
  reqBytes: number;
  resBytes: number;
  /** From the request's first byte to the response's first byte; null without a response. */
  ttfbMs: number | null;
  /** From the request's first byte to the response's last (or to the close). */
  totalMs: number;
  /** The faults on purpose that acted on this exchange, by name (`delay_c2s`, ...). */
  hitBy?: readonly string[];
}

/** Where the `-http` view's lines go: the text log or JSON lines. */
export interface HttpRecordWriter {
  exchange(record: HttpExchange): void;
  /** A request still without a response after `afterMs`. */
  stalled(record: HttpExchange, afterMs: number): void;
  /** The connection is not HTTP (or stopped being HTTP): its bytes are logged as entries. */
  warning(message: string): void;
}

/**
 * The text form, with the entries' indent and timestamp:
 * `H-0-#1 GET /index.html -> 200 (request body 0 bytes, response body 5 bytes, first byte 1 ms, total 2 ms)`.
 *
 * @example
 * const w = new TextHttpRecordWriter(sink, 0, "", null);
 * w.stalled({ conn: 0, seq: 2, method: "GET", target: "/slow", ... }, 10_000);
 * // H-0-#2 GET /slow -> stalled: no response after 10 s
 */
export class TextHttpRecordWriter implements HttpRecordWriter {
  readonly #label: string;
  readonly #sink: ByteSink;
  readonly #indent: string;
  readonly #stamp: TimestampPrefix | null;
  constructor(sink: ByteSink, conn: number, indent: string, stamp: TimestampPrefix | null) {
    this.#sink = sink;
    this.#indent = indent;
    this.#stamp = stamp;
    this.#label = `H-${conn}-`;
  }

  exchange(r: HttpExchange): void {
    const outcome =
      r.status === null
        ? `no response (connection closed after ${r.totalMs} ms)`
        : `${r.status} (request body ${r.reqBytes} bytes, response body ${r.resBytes} bytes, first byte ${r.ttfbMs} ms, total ${r.totalMs} ms)`;
    const faults = r.hitBy === undefined ? "" : ` [faults: ${r.hitBy.join(", ")}]`;
    this.#line(`#${r.seq} ${shown(r.method)} ${shown(r.target)} -> ${outcome}${faults}`);
  }

  stalled(r: HttpExchange, afterMs: number): void {
    this.#line(
      `#${r.seq} ${shown(r.method)} ${shown(r.target)} -> stalled: no response after ${afterMs / 1000} s`,
    );
  }

  warning(message: string): void {
    this.#line(`Warning: ${message}`);
  }

  #line(text: string): void {
    const stamp = this.#stamp === null ? "" : this.#stamp.bytes.toString("latin1");
    const bytes = Buffer.from(`${this.#indent}${stamp}${this.#label}${text}\n`, "latin1");
    this.#sink.reserve(bytes.length);
    this.#sink.pos += bytes.copy(this.#sink.buf, this.#sink.pos);
  }
}

/** As the text log shows bytes: anything outside printable ASCII as ".". */
function shown(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, ".");
}

/**
 * The JSON form (`-json -http`): `http` objects with the spec's keys, `stalled` objects, and the
 * warning as an `error` object marked `"warning":true`.
 */
export class JsonHttpRecordWriter implements HttpRecordWriter {
  readonly #sink: ByteSink;
  readonly #conn: number;
  readonly #time: IsoTimestamp;
  constructor(sink: ByteSink, conn: number, time: IsoTimestamp) {
    this.#sink = sink;
    this.#conn = conn;
    this.#time = time;
  }

  exchange(r: HttpExchange): void {
    this.#line(
      `"type":"http","conn":${r.conn},"seq":${r.seq},"method":${JSON.stringify(r.method)},"target":${JSON.stringify(
        r.target,
      )},"status":${r.status},"reqBytes":${r.reqBytes},"resBytes":${r.resBytes},"ttfbMs":${r.ttfbMs},"totalMs":${r.totalMs}${r.hitBy === undefined ? "" : `,"faults":${JSON.stringify(r.hitBy)}`}`,
    );
  }

  stalled(r: HttpExchange, afterMs: number): void {
    this.#line(
      `"type":"stalled","conn":${r.conn},"seq":${r.seq},"method":${JSON.stringify(r.method)},"target":${JSON.stringify(
        r.target,
      )},"afterMs":${afterMs}`,
    );
  }

  warning(message: string): void {
    this.#line(`"type":"error","conn":${this.#conn},"message":${JSON.stringify(message)},"warning":true`);
  }

  #line(fields: string): void {
    writeJsonLine(this.#sink, this.#time.bytes.toString("latin1"), fields);
  }
}
