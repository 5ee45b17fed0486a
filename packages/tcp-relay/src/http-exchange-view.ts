import type { TimeSource } from "./direction-writer.js";
import type { EntryAssembler } from "./entry-assembler.js";
import { BodyKeeper, type HarRecorder } from "./har-recorder.js";
import { type BodyFraming, type HttpMessageEvents, HttpMessageReader } from "./http-message-reader.js";
import type { HttpExchange, HttpRecordWriter } from "./http-record-writer.js";
import type { Clock } from "./timestamp.js";

/** Requests waiting for their responses beyond this are not a conversation the view can follow. */
export const MAX_PENDING_REQUESTS = 1000;

const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) (\S+) HTTP\/(\d)\.(\d)$/;
const STATUS_LINE = /^HTTP\/(\d)\.(\d) (\d{3})(?: .*)?$/;

interface Head {
  firstLine: string;
  headers: Map<string, string>;
}

function parseHead(text: string): Head {
  const lines = text.split(/\r?\n/);
  const headers = new Map<string, string>();
  for (let k = 1; k < lines.length; k++) {
    const line = lines[k]!;
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const before = headers.get(name);
    headers.set(name, before === undefined ? value : `${before}, ${value}`);
  }
  return { firstLine: lines[0]!, headers };
}

/** Body framing from Transfer-Encoding and Content-Length (RFC 9112 §6.3), or why it is invalid. */
function bodyFraming(headers: Map<string, string>, otherwise: BodyFraming): BodyFraming | string {
  const te = headers.get("transfer-encoding");
  if (te !== undefined && /(?:^|,)\s*chunked\s*$/i.test(te)) return { kind: "chunked" };
  const cl = headers.get("content-length");
  if (cl !== undefined) {
    const values = new Set(cl.split(",").map((v) => v.trim()));
    const [only] = values;
    if (values.size !== 1 || !/^\d{1,15}$/.test(only!)) return `a bad Content-Length "${cl.slice(0, 40)}"`;
    return { kind: "length", bytes: Number(only) };
  }
  return otherwise;
}

interface Pending extends HttpExchange {
  startedAt: number;
  /** The request asked to switch protocols (Upgrade, CONNECT): its answer decides. */
  switching: boolean;
  isHead: boolean;
  isConnect: boolean;
  stalledReported: boolean;
  /** The status of the response being read is 1xx other than 101: an interim response. */
  interim: boolean;
  faults: Set<string>;
  /** With `-har`: the heads and (the first bytes of) the bodies. */
  requestHead: string;
  responseHead: string | null;
  requestBody: BodyKeeper | null;
  responseBody: BodyKeeper | null;
}

/**
 * The `-http` view of one connection: one record per request/response pair (request number on the
 * connection, method, target, status, body sizes, time to first response byte and total time),
 * with pipelined requests answered in order, `Upgrade`/`CONNECT` switching to raw bytes, and a
 * `stalled` line for a request without a response after `stallMs`. A connection that is not HTTP
 * (or stops being HTTP) gets one warning and its bytes are logged as entries from there on, with
 * their true offsets. `client` and `server` take each direction's bytes as the entry assemblers do.
 *
 * @example
 * const view = new HttpExchangeView(0, records, (dir, offset) => new LineAssembler(writers[dir], offset), Date.now, null, 10_000);
 * view.client.push(Buffer.from("GET / HTTP/1.1\r\n\r\n"));
 * view.server.push(Buffer.from("HTTP/1.1 204 No Content\r\n\r\n")); // H-0-#1 GET / -> 204 (...)
 */
export class HttpExchangeView {
  readonly client: EntryAssembler;
  readonly server: EntryAssembler;
  readonly #requests: HttpMessageReader;
  readonly #responses: HttpMessageReader;
  /** Requests in order, oldest first, until their response ends. */
  readonly #queue: Pending[] = [];
  /** The request whose message is being read. */
  #reading: Pending | undefined;
  #seq = 0;
  #warned = false;
  #ended = 0;
  #timer: NodeJS.Timeout | undefined;
  /** Faults that acted while no request was waiting: they hit the next one (a delayed request). */
  readonly #carried = new Set<string>();
  readonly #bytes: { C?: EntryAssembler; S?: EntryAssembler } = {};
  readonly #conn: number;
  readonly #records: HttpRecordWriter;
  readonly #bytesFrom: (dir: "C" | "S", offset: number) => EntryAssembler;
  readonly #clock: Clock;
  readonly #time: TimeSource | null;
  readonly #stallMs: number;
  readonly #har: HarRecorder | null;

  constructor(
    conn: number,
    records: HttpRecordWriter,
    bytesFrom: (dir: "C" | "S", offset: number) => EntryAssembler,
    clock: Clock,
    time: TimeSource | null,
    stallMs: number,
    har: HarRecorder | null = null,
  ) {
    this.#har = har;
    this.#conn = conn;
    this.#records = records;
    this.#bytesFrom = bytesFrom;
    this.#clock = clock;
    this.#time = time;
    this.#stallMs = stallMs;
    this.#requests = new HttpMessageReader("request", this.#requestEvents());
    this.#responses = new HttpMessageReader("response", this.#responseEvents());
    this.client = {
      push: (chunk) => this.#requests.push(chunk),
      end: () => this.#endOf("C", this.#requests),
    };
    this.server = {
      push: (chunk) => this.#responses.push(chunk),
      end: () => this.#endOf("S", this.#responses),
    };
  }

  /**
   * A fault (by name) acted on the connection: every request waiting for its response was hit by
   * it, or, with none waiting, the next request (whose bytes the fault is holding).
   */
  noteFault(name: string): void {
    if (this.#queue.length === 0) this.#carried.add(name);
    for (const p of this.#queue) p.faults.add(name);
  }

  #raw(dir: "C" | "S", bytes: Buffer, offset: number): void {
    this.#bytes[dir] ??= this.#bytesFrom(dir, offset);
    this.#bytes[dir].push(bytes);
  }

  #fallBack(reason: string): void {
    if (!this.#warned) {
      this.#warned = true;
      this.#records.warning(`not HTTP (${reason}); logging the bytes`);
    }
    // Requests not fully answered are dropped: their bytes are in the entries that follow.
    this.#queue.length = 0;
    this.#reading = undefined;
    this.#stopTimer();
    this.#requests.goRaw();
    this.#responses.goRaw();
  }

  #requestEvents(): HttpMessageEvents {
    return {
      onMessageStart: () => {
        const now = this.#clock();
        const p: Pending = {
          conn: this.#conn,
          seq: ++this.#seq,
          method: "",
          target: "",
          status: null,
          reqBytes: 0,
          resBytes: 0,
          ttfbMs: null,
          totalMs: 0,
          startedAt: now,
          switching: false,
          isHead: false,
          isConnect: false,
          stalledReported: false,
          interim: false,
          faults: new Set(this.#carried),
          requestHead: "",
          responseHead: null,
          requestBody: this.#har === null ? null : new BodyKeeper(this.#har.bodyLimit),
          responseBody: this.#har === null ? null : new BodyKeeper(this.#har.bodyLimit),
        };
        this.#carried.clear();
        this.#reading = p;
        this.#queue.push(p);
        if (this.#queue.length > MAX_PENDING_REQUESTS) {
          this.#fallBack(`more than ${MAX_PENDING_REQUESTS} requests without a response`);
          return;
        }
        this.#armTimer();
      },
      onHead: (text) => {
        const head = parseHead(text);
        const m = REQUEST_LINE.exec(head.firstLine);
        const p = this.#reading;
        if (m === null || p === undefined) return "no request line";
        p.method = m[1]!;
        p.target = m[2]!;
        if (this.#har !== null) p.requestHead = text;
        p.isHead = p.method === "HEAD";
        p.isConnect = p.method === "CONNECT";
        p.switching = p.isConnect || head.headers.has("upgrade");
        const framing = bodyFraming(head.headers, { kind: "none" });
        if (typeof framing === "string") return framing;
        return p.switching ? { ...framing, pauseAfter: true } : framing;
      },
      onBody: (n, chunk, start) => {
        const p = this.#reading;
        if (p === undefined) return;
        p.reqBytes += n;
        p.requestBody?.take(chunk, start, n);
      },
      onMessageEnd: () => {
        this.#reading = undefined;
      },
      onRaw: (bytes, offset) => this.#raw("C", bytes, offset),
      onNotHttp: (reason) => this.#fallBack(reason),
    };
  }

  #responseEvents(): HttpMessageEvents {
    return {
      onMessageStart: () => {
        const p = this.#queue[0];
        if (p !== undefined && p.ttfbMs === null) p.ttfbMs = this.#clock() - p.startedAt;
      },
      onHead: (text) => {
        const p = this.#queue[0];
        if (p === undefined || p.method === "") return "a response without a request";
        const m = STATUS_LINE.exec(parseHead(text).firstLine);
        if (m === null) return "no status line";
        const headers = parseHead(text).headers;
        const status = Number(m[3]);
        const http10 = m[1] === "1" && m[2] === "0";
        p.interim = status >= 100 && status < 200 && status !== 101;
        if (p.interim) return { kind: "none" };
        p.status = status;
        if (this.#har !== null) p.responseHead = text;
        if (p.switching && (status === 101 || (p.isConnect && status >= 200 && status < 300))) {
          // The connection now carries another protocol: both directions are bytes from here.
          this.#requests.goRaw();
          return { kind: "raw" };
        }
        if (p.switching) this.#requests.resume();
        if (p.isHead || status === 204 || status === 304) return { kind: "none" };
        return bodyFraming(headers, http10 ? { kind: "until-close" } : { kind: "until-close" });
      },
      onBody: (n, chunk, start) => {
        const p = this.#queue[0];
        if (p === undefined) return;
        p.resBytes += n;
        p.responseBody?.take(chunk, start, n);
      },
      onMessageEnd: () => {
        const p = this.#queue[0];
        if (p === undefined) return;
        if (p.interim) {
          p.interim = false;
          return;
        }
        this.#queue.shift();
        p.totalMs = this.#clock() - p.startedAt;
        this.#time?.refresh();
        this.#record(p);
      },
      onRaw: (bytes, offset) => this.#raw("S", bytes, offset),
      onNotHttp: (reason) => this.#fallBack(reason),
    };
  }

  #endOf(dir: "C" | "S", reader: HttpMessageReader): void {
    reader.end();
    this.#bytes[dir]?.end();
    if (++this.#ended < 2) return;
    // Both directions are over: whatever is still waiting never got its answer.
    this.#stopTimer();
    const now = this.#clock();
    for (const p of this.#queue.splice(0)) {
      if (p.method === "") continue;
      p.status = null;
      p.ttfbMs = null;
      p.totalMs = now - p.startedAt;
      this.#record(p);
    }
  }

  #record(p: Pending): void {
    const record = withFaults(p);
    this.#records.exchange(record);
    this.#har?.add({
      conn: p.conn,
      startedAt: p.startedAt,
      ttfbMs: p.ttfbMs,
      totalMs: p.totalMs,
      requestHead: p.requestHead,
      requestBody: p.requestBody?.bytes() ?? Buffer.alloc(0),
      requestBodySize: p.reqBytes,
      responseHead: p.status === null ? null : p.responseHead,
      responseBody: p.responseBody?.bytes() ?? Buffer.alloc(0),
      responseBodySize: p.resBytes,
      hitBy: record.hitBy,
    });
  }

  #armTimer(): void {
    if (this.#timer !== undefined || this.#stallMs <= 0) return;
    const oldest = this.#queue.find((p) => p.ttfbMs === null && !p.stalledReported);
    if (oldest === undefined) return;
    const due = Math.max(0, oldest.startedAt + this.#stallMs - this.#clock());
    this.#timer = setTimeout(this.#onTimer, due);
    this.#timer.unref();
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    const now = this.#clock();
    let wrote = false;
    for (const p of this.#queue) {
      if (p.ttfbMs !== null || p.stalledReported || p.method === "") continue;
      if (now - p.startedAt < this.#stallMs) continue;
      p.stalledReported = true;
      if (!wrote) this.#time?.refresh();
      wrote = true;
      this.#records.stalled(p, this.#stallMs);
    }
    this.#armTimer();
  };

  #stopTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** The record as written: the faults that hit it, by name, in the order they first acted. */
function withFaults(p: Pending): HttpExchange {
  return p.faults.size === 0 ? p : { ...p, hitBy: [...p.faults] };
}
