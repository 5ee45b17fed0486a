/**
 * How the body of a message is delimited (RFC 9112 §6.3), decided by the view from the head.
 * `pauseAfter`: the next bytes may not be HTTP (an `Upgrade` or `CONNECT` request): hold them
 * until the answer says whether the connection switches to raw bytes.
 */
export type BodyFraming =
  | { kind: "none"; pauseAfter?: boolean }
  | { kind: "length"; bytes: number; pauseAfter?: boolean }
  | { kind: "chunked"; pauseAfter?: boolean }
  | { kind: "until-close" }
  | { kind: "raw" };

/** What a reader reports; `offset`s are positions in this direction's stream. */
export interface HttpMessageEvents {
  /** The first byte of a message arrived. */
  onMessageStart(): void;
  /**
   * A message head is complete (`head` without its final empty line): the view answers how the
   * body is framed, or why this is not HTTP after all.
   */
  onHead(head: string): BodyFraming | string;
  /** `bytes` body bytes (chunked coding removed): `chunk[start..start + bytes)`. */
  onBody(bytes: number, chunk: Buffer, start: number): void;
  onMessageEnd(): void;
  /** These bytes are not (or no longer) HTTP: from `offset` on, the stream is logged as bytes. */
  onRaw(bytes: Buffer, offset: number): void;
  /** The stream stopped being HTTP here, for `reason`; `onRaw` follows with the bytes. */
  onNotHttp(reason: string): void;
}

// Bounds that keep a non-HTTP stream from being held in memory as a would-be head.
const MAX_HEAD = 64 * 1024;
const MAX_FIRST_LINE = 8 * 1024;
const MAX_CHUNK_LINE = 1024;
const MAX_PAUSED = 64 * 1024;
const LF = 0x0a;
const CR = 0x0d;
const SP = 0x20;
const HTTP_PREFIX = Buffer.from("HTTP/", "latin1");

// A method is an RFC 9110 token; checking byte by byte lets a non-HTTP stream be told at once.
const TOKEN = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
  TOKEN[c.charCodeAt(0)] = 1;
}

enum State {
  Head,
  Length,
  ChunkLine,
  ChunkData,
  ChunkEnd,
  Trailer,
  UntilClose,
  Paused,
  Raw,
}

/**
 * Frames one direction of an HTTP/1.x connection into messages, whatever the segmentation: heads
 * are gathered (at most 64 KiB) until their empty line, bodies are counted by Content-Length,
 * chunked coding or the end of the stream, as the view decides from each head. Bytes that cannot
 * be HTTP are handed on as raw bytes with their stream offset, so that nothing goes unlogged.
 *
 * @example
 * const reader = new HttpMessageReader("request", events);
 * reader.push(Buffer.from("GET / HTTP/1.1\r\nHost: a\r\n\r\n")); // onMessageStart, onHead, onMessageEnd
 */
export class HttpMessageReader {
  /** Stream offset of the next byte. */
  offset = 0;
  #state = State.Head;
  #head = Buffer.allocUnsafe(1024);
  #headLength = 0;
  #headOffset = 0;
  /** Bytes since the last LF of the head, CRs not counted; -1 before the first line starts. */
  #lineLength = -1;
  #firstLine = true;
  #remaining = 0;
  #line = "";
  /** The request line's method has ended (its space was seen). */
  #methodDone = false;
  #pauseAfterMessage = false;
  #paused: Buffer[] = [];
  #pausedBytes = 0;
  #pausedOffset = 0;
  readonly #events: HttpMessageEvents;

  constructor(
    readonly kind: "request" | "response",
    events: HttpMessageEvents,
  ) {
    this.#events = events;
  }

  get isRaw(): boolean {
    return this.#state === State.Raw;
  }

  /** True between messages (nothing of a next message has arrived). */
  get idle(): boolean {
    return this.#state === State.Head && this.#headLength === 0;
  }

  push(chunk: Buffer): void {
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      switch (this.#state) {
        case State.Head:
          i = this.#readHead(chunk, i);
          break;
        case State.Length: {
          const take = Math.min(this.#remaining, n - i);
          this.#remaining -= take;
          this.#events.onBody(take, chunk, i);
          i += take;
          if (this.#remaining === 0) this.#endMessage();
          break;
        }
        case State.ChunkLine:
        case State.ChunkEnd:
        case State.Trailer:
          i = this.#readLine(chunk, i);
          break;
        case State.ChunkData: {
          const take = Math.min(this.#remaining, n - i);
          this.#remaining -= take;
          this.#events.onBody(take, chunk, i);
          i += take;
          if (this.#remaining === 0) this.#state = State.ChunkEnd;
          break;
        }
        case State.UntilClose:
          this.#events.onBody(n - i, chunk, i);
          i = n;
          break;
        case State.Paused:
          if (this.#pausedOffset === -1) this.#pausedOffset = this.offset + i;
          this.#paused.push(Buffer.from(chunk.subarray(i)));
          this.#pausedBytes += n - i;
          i = n;
          if (this.#pausedBytes > MAX_PAUSED) this.goRaw("more than 64 KiB after an Upgrade request");
          break;
        case State.Raw:
          this.#events.onRaw(chunk.subarray(i), this.offset + i);
          i = n;
          break;
      }
    }
    this.offset += n;
  }

  /** The direction ended: a body read until the close ends here. */
  end(): void {
    if (this.#state === State.UntilClose) this.#endMessage();
  }

  /** Switches to raw bytes now, handing on what is held (a partial head, paused bytes). */
  goRaw(reason?: string): void {
    if (this.#state === State.Raw) return;
    if (reason !== undefined) this.#events.onNotHttp(reason);
    const wasState = this.#state;
    this.#state = State.Raw;
    if (wasState === State.Head && this.#headLength > 0) {
      this.#events.onRaw(this.#head.subarray(0, this.#headLength), this.#headOffset);
      this.#headLength = 0;
    }
    if (wasState === State.Paused) {
      let offset = this.#pausedOffset;
      for (const b of this.#paused) {
        this.#events.onRaw(b, offset);
        offset += b.length;
      }
      this.#paused = [];
    }
  }

  /** After a pause: the answer was not a switch, so the held bytes are HTTP after all. */
  resume(): void {
    if (this.#state !== State.Paused) return;
    const held = this.#paused;
    const offset = this.#pausedOffset;
    this.#paused = [];
    this.#pausedBytes = 0;
    this.#state = State.Head;
    // Replayed from their own offset; push() adds their length back.
    this.offset = offset;
    const end = offset + held.reduce((s, b) => s + b.length, 0);
    for (const b of held) this.push(b);
    this.offset = end;
  }

  #readHead(chunk: Buffer, start: number): number {
    const n = chunk.length;
    for (let i = start; i < n; i++) {
      const b = chunk[i]!;
      if (this.#headLength === 0) {
        // Empty lines before a message are tolerated (RFC 9112 §2.2) and not part of it.
        if (b === CR || b === LF) continue;
        this.#headOffset = this.offset + i;
        this.#lineLength = 0;
        this.#firstLine = true;
        this.#events.onMessageStart();
        if (this.#state === State.Raw) {
          // The view gave up on HTTP at this message: the bytes from its first one on are raw.
          this.#events.onRaw(chunk.subarray(i), this.offset + i);
          return n;
        }
      }
      this.#appendHead(b);
      if (b === LF) {
        if (this.#lineLength === 0) return this.#headDone(i + 1);
        this.#lineLength = 0;
        this.#firstLine = false;
      } else if (b !== CR) {
        this.#lineLength++;
        if (this.#firstLine && !this.#firstLineByteOk(b)) {
          this.#goRawFrom(chunk, i + 1, `${this.kind === "request" ? "no request line" : "no status line"}`);
          return n;
        }
      }
      if (this.#headLength > MAX_HEAD) {
        this.#goRawFrom(chunk, i + 1, "a message head longer than 64 KiB");
        return n;
      }
    }
    return n;
  }

  /** Checks the start of the first line as it arrives: `TOKEN SP` or `HTTP/`. */
  #firstLineByteOk(b: number): boolean {
    const k = this.#lineLength - 1;
    if (k >= MAX_FIRST_LINE) return false;
    if (this.kind === "response") return k >= HTTP_PREFIX.length || b === HTTP_PREFIX[k];
    if (this.#methodDone) return true;
    if (b === SP && k > 0) {
      this.#methodDone = true;
      return true;
    }
    return TOKEN[b] === 1;
  }

  #goRawFrom(chunk: Buffer, next: number, reason: string): void {
    this.#line = "";
    this.#methodDone = false;
    this.goRaw(reason);
    if (next < chunk.length) this.#events.onRaw(chunk.subarray(next), this.offset + next);
  }

  #appendHead(b: number): void {
    if (this.#headLength === this.#head.length) {
      const bigger = Buffer.allocUnsafe(this.#head.length * 2);
      this.#head.copy(bigger, 0, 0, this.#headLength);
      this.#head = bigger;
    }
    this.#head[this.#headLength++] = b;
  }

  #headDone(next: number): number {
    const text = this.#head.toString("latin1", 0, this.#headLength).trimEnd();
    this.#methodDone = false;
    const framing = this.#events.onHead(text);
    if (typeof framing === "string") {
      // Not HTTP after all: the head is logged as bytes, and so is everything after it.
      this.goRaw(framing);
      return next;
    }
    this.#headLength = 0;
    this.#pauseAfterMessage = "pauseAfter" in framing && framing.pauseAfter === true;
    switch (framing.kind) {
      case "none":
        this.#endMessage();
        break;
      case "length":
        this.#remaining = framing.bytes;
        if (framing.bytes === 0) this.#endMessage();
        else this.#state = State.Length;
        break;
      case "chunked":
        this.#state = State.ChunkLine;
        break;
      case "until-close":
        this.#state = State.UntilClose;
        break;
      case "raw":
        this.#events.onMessageEnd();
        this.#state = State.Raw;
        break;
    }
    return next;
  }

  /** Chunk-size lines, the CRLF after chunk data, and trailer lines. */
  #readLine(chunk: Buffer, start: number): number {
    const lf = chunk.indexOf(LF, start);
    const stop = lf === -1 ? chunk.length : lf;
    this.#line += chunk.toString("latin1", start, stop);
    if (this.#line.length > MAX_CHUNK_LINE) {
      this.#goRawFrom(chunk, stop, "a chunk line longer than 1 KiB");
      return chunk.length;
    }
    if (lf === -1) return chunk.length;
    const line = this.#line.trimEnd();
    this.#line = "";
    if (this.#state === State.ChunkEnd) {
      this.#state = State.ChunkLine;
    } else if (this.#state === State.Trailer) {
      if (line === "") this.#endMessage();
    } else {
      const size = /^[0-9a-fA-F]{1,12}(?=[ \t;]|$)/.exec(line);
      if (size === null) {
        this.#goRawFrom(chunk, lf + 1, `a bad chunk size line "${line.slice(0, 40)}"`);
        return chunk.length;
      }
      this.#remaining = Number.parseInt(size[0], 16);
      this.#state = this.#remaining === 0 ? State.Trailer : State.ChunkData;
    }
    return lf + 1;
  }

  #endMessage(): void {
    this.#state = State.Head;
    this.#headLength = 0;
    this.#events.onMessageEnd();
    if (this.#pauseAfterMessage) {
      this.#pauseAfterMessage = false;
      this.#state = State.Paused;
      this.#pausedBytes = 0;
      this.#pausedOffset = -1;
    }
  }
}
