import { rename, writeFile } from "node:fs/promises";
import { resolve } from "node:path";

/** One request/response pair as the `-http` view saw it, with heads and bodies for `-har`. */
export interface HarExchange {
  conn: number;
  /** When the request's first byte was forwarded, on the `-http` view's clock (ms since 1970). */
  startedAt: number;
  ttfbMs: number | null;
  totalMs: number;
  /** The request head without its final empty line (latin1, as read). */
  requestHead: string;
  requestBody: Buffer;
  requestBodySize: number;
  /** The final response's head; null when the connection closed without one. */
  responseHead: string | null;
  responseBody: Buffer;
  responseBodySize: number;
  /** Faults that acted on the exchange. */
  hitBy: readonly string[] | undefined;
}

/** A body kept for the HAR: its first `limit` bytes (`-harbody`) and its whole size. */
export class BodyKeeper {
  readonly #parts: Buffer[] = [];
  #kept = 0;
  constructor(readonly limit: number) {}
  take(chunk: Buffer, start: number, n: number): void {
    const room = Math.min(n, this.limit - this.#kept);
    if (room <= 0) return;
    // Copied: the chunk's buffer is the relay's and goes on to other uses.
    this.#parts.push(Buffer.from(chunk.subarray(start, start + room)));
    this.#kept += room;
  }
  bytes(): Buffer {
    return Buffer.concat(this.#parts);
  }
}

/** `-harbody` when not given: 1 MiB of each body. */
export const DEFAULT_HAR_BODY_BYTES = 1024 * 1024;

type Pair = { name: string; value: string };

/** The head's first line and its header fields, in order, duplicates kept. */
function parseHead(head: string): { first: string; headers: Pair[] } {
  const lines = head.split(/\r?\n/);
  const headers: Pair[] = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
  }
  return { first: lines[0] ?? "", headers };
}

function header(headers: Pair[], name: string): string | undefined {
  return headers.find((h) => h.name.toLowerCase() === name)?.value;
}

// A body is kept as text when its type says text and it is not compressed; otherwise as base64
// (HAR 1.2 §content: `encoding`).
const TEXT_TYPE = /^text\/|[/+](json|xml|javascript|x-www-form-urlencoded)\b/i;

function content(headers: Pair[], body: Buffer, size: number) {
  const mimeType = header(headers, "content-type") ?? "";
  const truncated =
    body.length < size ? { comment: `body truncated to its first ${body.length} bytes (-harbody)` } : {};
  const asText = TEXT_TYPE.test(mimeType) && header(headers, "content-encoding") === undefined;
  if (size === 0) return { size: 0, mimeType };
  return asText
    ? { size, mimeType, text: body.toString("utf8"), ...truncated }
    : { size, mimeType, text: body.toString("base64"), encoding: "base64", ...truncated };
}

function cookies(value: string | undefined): Pair[] {
  if (value === undefined) return [];
  return value
    .split(";")
    .map((c) => c.trim())
    .filter((c) => c.includes("="))
    .map((c) => ({ name: c.slice(0, c.indexOf("=")).trim(), value: c.slice(c.indexOf("=") + 1).trim() }));
}

/**
 * The HAR 1.2 entry (W3C "HTTP Archive (HAR) format", §entries) of one exchange. Times are the
 * `-http` view's: `wait` is its time to first byte, `receive` the rest of its total; the relay sees
 * neither DNS nor connecting on the client's side (`-1`), and the request as sent at once (`send` 0).
 */
export function harEntry(x: HarExchange, authority: string) {
  const req = parseHead(x.requestHead);
  const [method = "", target = "", version = "HTTP/1.1"] = req.first.split(" ");
  const host = header(req.headers, "host") ?? authority;
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(target)
    ? target
    : method === "CONNECT"
      ? `http://${target}/`
      : `http://${host}${target.startsWith("/") ? target : `/${target}`}`;
  let queryString: Pair[] = [];
  try {
    queryString = [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    // A target that is no URL keeps an empty query string.
  }
  const request = {
    method,
    url,
    httpVersion: version,
    cookies: cookies(header(req.headers, "cookie")),
    headers: req.headers,
    queryString,
    ...(x.requestBodySize > 0
      ? {
          postData: {
            mimeType: header(req.headers, "content-type") ?? "",
            text: x.requestBody.toString("utf8"),
            params: [],
          },
        }
      : {}),
    headersSize: -1,
    bodySize: x.requestBodySize,
  };
  const res = x.responseHead === null ? null : parseHead(x.responseHead);
  const status = res === null ? null : /^(HTTP\/\d\.\d) (\d{3}) ?(.*)$/.exec(res.first);
  const response = {
    status: status === null ? 0 : Number(status[2]),
    statusText: status?.[3] ?? "",
    httpVersion: status?.[1] ?? "",
    cookies: (res?.headers ?? [])
      .filter((h) => h.name.toLowerCase() === "set-cookie")
      .flatMap((h) => cookies(h.value.split(";")[0])),
    headers: res?.headers ?? [],
    content: content(res?.headers ?? [], x.responseBody, x.responseBodySize),
    redirectURL: (res === null ? undefined : header(res.headers, "location")) ?? "",
    headersSize: -1,
    bodySize: res === null ? -1 : x.responseBodySize,
    ...(res === null ? { comment: `no response (connection closed after ${x.totalMs} ms)` } : {}),
  };
  const wait = x.ttfbMs ?? x.totalMs;
  const notes = [
    x.hitBy === undefined ? "" : `faults: ${x.hitBy.join(", ")}`,
    `tcp-relay connection ${x.conn}`,
  ].filter((n) => n !== "");
  return {
    startedDateTime: new Date(x.startedAt).toISOString(),
    time: x.totalMs,
    request,
    response,
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, send: 0, wait, receive: x.totalMs - wait, ssl: -1 },
    connection: String(x.conn),
    comment: notes.join("; "),
  };
}

/**
 * `-har <file>`: the `-http` view's exchanges, kept in the order they completed, written as one
 * HAR 1.2 document when the relay stops and on demand (SIGUSR2), each time whole, through a
 * temporary file renamed over the target so that a reader never sees half a file.
 *
 * @example
 * const har = new HarRecorder("relay.har", "example.com:80", "0.1.0");
 * har.add(exchange);
 * await har.write();
 */
export class HarRecorder {
  readonly path: string;
  readonly #entries: ReturnType<typeof harEntry>[] = [];
  #writing: Promise<void> = Promise.resolve();

  constructor(
    file: string,
    readonly authority: string,
    readonly version: string,
    readonly bodyLimit = DEFAULT_HAR_BODY_BYTES,
  ) {
    this.path = resolve(file);
  }

  add(x: HarExchange): void {
    this.#entries.push(harEntry(x, this.authority));
  }

  get size(): number {
    return this.#entries.length;
  }

  /** The HAR document of everything recorded so far. */
  document() {
    return {
      log: {
        version: "1.2",
        creator: { name: "tcp-relay", version: this.version },
        entries: this.#entries,
      },
    };
  }

  /** Writes the document (after any write still running). */
  write(): Promise<void> {
    this.#writing = this.#writing.then(async () => {
      const temporary = `${this.path}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(this.document(), null, 1));
      await rename(temporary, this.path);
    });
    return this.#writing;
  }
}
