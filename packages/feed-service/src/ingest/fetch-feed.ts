/**
 * The fetcher: one HTTP(S) GET of a feed document with undici, as a well-behaved aggregator
 * makes it. Conditional (If-None-Match / If-Modified-Since, with `Cache-Control: max-age=0` so
 * that caches revalidate and a 304 comes back), compressed (gzip, deflate, br; decompressed here
 * with an output cap so that a gzip bomb stops at the size limit), redirects followed by hand
 * (bounded; a chain of permanent redirects reports the new URL), and three timeouts: connect,
 * first byte (response headers) and total. A body over the size cap is cut off, not buffered.
 */
import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync } from "node:zlib";
import { Agent, type Dispatcher, request } from "undici";
import type { FailureCode } from "./failure-codes.js";
import { publicOnlyConnector, refusalIn } from "./fetch-address-rule.js";
import { FeedFetchError, retryAfterMs } from "./fetch-error.js";

export interface FetchOptions {
  etag?: string | null;
  lastModified?: string | null;
  /** Milliseconds to establish the connection (default 10 s). */
  connectTimeoutMs?: number;
  /** Milliseconds from sending the request to the response headers (default 15 s). */
  firstByteTimeoutMs?: number;
  /** Milliseconds for the whole fetch, redirects and body included (default 30 s). */
  totalTimeoutMs?: number;
  /** Largest body accepted, after decompression (default 10 MiB). */
  maxBytes?: number;
  /** Redirects followed before giving up (default 5). */
  maxRedirects?: number;
  userAgent?: string;
  /** Share one agent (connection pool) across fetches; one with the timeouts is made otherwise. */
  dispatcher?: Dispatcher;
  /** Stops the fetch early (the refresh lost its claim on the feed). */
  signal?: AbortSignal;
  /**
   * Connect only to public internet addresses (fetch-address-rule.ts), checked at every hop and
   * every DNS answer. The commands set it unless the operator passes --allow-private-fetch (spec
   * §5.5); a caller's own `dispatcher` carries its own rule instead.
   */
  publicAddressesOnly?: boolean;
}

export type FetchOutcome =
  | {
      status: "fetched";
      /** The URL the document came from, after redirects. */
      url: string;
      /** Set when every redirect on the way was permanent (301/308): the feed's new address. */
      movedTo: string | null;
      body: Uint8Array;
      contentType: string | null;
      /** The Content-Language header: the document's language when it declares none itself. */
      contentLanguage: string | null;
      /** The `Link` header lines (WebSub discovery reads rel="hub" and rel="self" there). */
      links: string[];
      etag: string | null;
      lastModified: string | null;
    }
  | {
      status: "not-modified";
      url: string;
      movedTo: string | null;
      etag: string | null;
      lastModified: string | null;
    };

export const defaultUserAgent = "feed-service/0.1 (feed aggregator; polls politely, honours Retry-After)";
const accept =
  "application/rss+xml, application/atom+xml, application/feed+json, application/rdf+xml;q=0.9, application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, */*;q=0.5";

/** An agent with the fetcher's connect and first-byte timeouts, to share across many fetches. */
export function createFetchAgent(
  opts: {
    connectTimeoutMs?: number;
    firstByteTimeoutMs?: number;
    connections?: number;
    publicAddressesOnly?: boolean;
  } = {},
) {
  const timeout = opts.connectTimeoutMs ?? 10_000;
  return new Agent({
    connect: opts.publicAddressesOnly ? publicOnlyConnector({ timeout }) : { timeout },
    headersTimeout: opts.firstByteTimeoutMs ?? 15_000,
    bodyTimeout: opts.firstByteTimeoutMs ?? 15_000,
    connections: opts.connections ?? 4,
  });
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const v = headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? null;
}

function headerLines(headers: Record<string, string | string[] | undefined>, name: string): string[] {
  const v = headers[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function decompress(raw: Buffer, encoding: string | null, maxBytes: number): Buffer {
  const coding = (encoding ?? "identity").trim().toLowerCase();
  const opts = { maxOutputLength: maxBytes };
  try {
    if (coding === "gzip" || coding === "x-gzip")
      return gunzipSync(raw, { ...opts, finishFlush: constants.Z_SYNC_FLUSH });
    if (coding === "br") return brotliDecompressSync(raw, opts);
    if (coding === "deflate") {
      // Servers send both zlib-wrapped and raw deflate under this name.
      try {
        return inflateSync(raw, opts);
      } catch (error) {
        if (error instanceof RangeError) throw error;
        return inflateRawSync(raw, opts);
      }
    }
    return raw;
  } catch (error) {
    if (error instanceof RangeError || (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new FeedFetchError(`The feed is larger than ${maxBytes} bytes once decompressed.`, {
        failure: "TOO_LARGE",
        cause: error,
      });
    }
    throw new FeedFetchError(`The feed's ${coding} compression is corrupt.`, {
      failure: "BAD_COMPRESSION",
      cause: error,
    });
  }
}

/**
 * A network error as a fetch failure. TLS failures arrive as OpenSSL's codes (CERT_HAS_EXPIRED,
 * DEPTH_ZERO_SELF_SIGNED_CERT, ERR_TLS_CERT_ALTNAME_INVALID, ERR_SSL_..., EPROTO), possibly as
 * the cause of undici's own error.
 */
function networkFailure(
  error: unknown,
  url: URL,
  opts: { total: number; cancelled: boolean },
): { failure: FailureCode; message: string } {
  const cause = (error as { cause?: { code?: string } }).cause;
  const code = (error as { code?: string }).code ?? cause?.code ?? "";
  const name = (error as { name?: string }).name ?? "";
  if (opts.cancelled) return { failure: "FETCH_FAILED", message: "The fetch was stopped." };
  const refusal = refusalIn(error);
  if (refusal)
    return {
      failure: "ADDRESS_REFUSED",
      message: `Not fetched: ${refusal.message.replace(/\.$/, "")}; private addresses are fetched only with --allow-private-fetch.`,
    };
  if (code === "UND_ERR_CONNECT_TIMEOUT")
    return { failure: "FETCH_TIMEOUT", message: `Connecting to ${url.host} timed out.` };
  if (code === "UND_ERR_HEADERS_TIMEOUT")
    return { failure: "FETCH_TIMEOUT", message: `${url.host} did not start answering in time.` };
  if (code === "UND_ERR_BODY_TIMEOUT")
    return { failure: "FETCH_TIMEOUT", message: `${url.host} stalled while sending the feed.` };
  if (name === "TimeoutError" || name === "AbortError")
    return { failure: "FETCH_TIMEOUT", message: `Fetching the feed took longer than ${opts.total} ms.` };
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return { failure: "DNS", message: `The host ${url.hostname} was not found.` };
  if (code === "ECONNREFUSED")
    return { failure: "CONNECTION_REFUSED", message: `${url.host} refused the connection.` };
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET")
    return { failure: "CONNECTION_RESET", message: `${url.host} closed the connection.` };
  if (/CERT|SSL|TLS|EPROTO/.test(code))
    return { failure: "TLS", message: `The TLS handshake with ${url.host} failed (${code}).` };
  return {
    failure: "FETCH_FAILED",
    message: `Fetching the feed failed (${code || name || "network error"}).`,
  };
}

function networkError(
  error: unknown,
  url: URL,
  total: number,
  cancel: AbortSignal | undefined,
): FeedFetchError {
  const { failure, message } = networkFailure(error, url, { total, cancelled: cancel?.aborted ?? false });
  return new FeedFetchError(message, { failure, cause: error });
}

/** Parses and checks a feed URL: absolute http(s) only. */
export function feedUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new FeedFetchError(`The feed URL ${JSON.stringify(text)} is not an absolute URL.`, {
      failure: "BAD_URL",
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FeedFetchError(`The feed URL must use http or https; got ${url.protocol.replace(":", "")}.`, {
      failure: "BAD_URL",
    });
  }
  return url;
}

/**
 * Fetches a feed document.
 *
 * @example
 * const got = await fetchFeed("https://example.com/feed.xml", { etag: '"abc"' });
 * if (got.status === "fetched") console.log(got.body.byteLength);
 */
export async function fetchFeed(target: string, opts: FetchOptions = {}): Promise<FetchOutcome> {
  const maxBytes = opts.maxBytes ?? 10 * 1024 * 1024;
  const maxRedirects = opts.maxRedirects ?? 5;
  const total = opts.totalTimeoutMs ?? 30_000;
  const ownAgent = opts.dispatcher ? null : createFetchAgent(opts);
  const dispatcher = opts.dispatcher ?? ownAgent!;
  const signal = opts.signal
    ? AbortSignal.any([AbortSignal.timeout(total), opts.signal])
    : AbortSignal.timeout(total);
  let url = feedUrl(target);
  let permanent = true;
  try {
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = {
        "user-agent": opts.userAgent ?? defaultUserAgent,
        accept,
        "accept-encoding": "gzip, deflate, br",
        "cache-control": "max-age=0",
      };
      if (opts.etag) headers["if-none-match"] = opts.etag;
      if (opts.lastModified) headers["if-modified-since"] = opts.lastModified;
      let res: Dispatcher.ResponseData;
      try {
        res = await request(url, { method: "GET", headers, dispatcher, signal });
      } catch (error) {
        throw networkError(error, url, total, opts.signal);
      }
      const status = res.statusCode;
      const movedTo = () => (hop > 0 && permanent ? url.href : null);
      if (status >= 300 && status < 400 && status !== 304) {
        await res.body.dump().catch(() => {});
        const location = header(res.headers, "location");
        if (!location)
          throw new FeedFetchError(`The server answered ${status} without a Location.`, {
            httpStatus: status,
          });
        if (hop >= maxRedirects)
          throw new FeedFetchError(`More than ${maxRedirects} redirects.`, {
            failure: "TOO_MANY_REDIRECTS",
            httpStatus: status,
          });
        if (status !== 301 && status !== 308) permanent = false;
        url = feedUrl(new URL(location, url).href);
        continue;
      }
      const etag = header(res.headers, "etag");
      const lastModified = header(res.headers, "last-modified");
      if (status === 304) {
        await res.body.dump().catch(() => {});
        return { status: "not-modified", url: url.href, movedTo: movedTo(), etag, lastModified };
      }
      if (status < 200 || status >= 300) {
        await res.body.dump().catch(() => {});
        const wait =
          status === 429 || status === 503 ? retryAfterMs(res.headers["retry-after"], Date.now()) : null;
        throw new FeedFetchError(`The server answered HTTP ${status}.`, {
          httpStatus: status,
          retryAfterMs: wait,
        });
      }
      const raw = await readCapped(res, maxBytes, url, total, opts.signal);
      const body = decompress(raw, header(res.headers, "content-encoding"), maxBytes);
      return {
        status: "fetched",
        url: url.href,
        movedTo: movedTo(),
        body,
        contentType: header(res.headers, "content-type"),
        contentLanguage: header(res.headers, "content-language"),
        links: headerLines(res.headers, "link"),
        etag,
        lastModified,
      };
    }
  } finally {
    if (ownAgent) await ownAgent.close().catch(() => {});
  }
}

async function readCapped(
  res: Dispatcher.ResponseData,
  maxBytes: number,
  url: URL,
  total: number,
  cancel: AbortSignal | undefined,
): Promise<Buffer> {
  const declared = Number(header(res.headers, "content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    res.body.destroy();
    throw new FeedFetchError(`The feed is larger than ${maxBytes} bytes (${declared} declared).`, {
      failure: "TOO_LARGE",
    });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      size += (chunk as Buffer).byteLength;
      if (size > maxBytes) {
        res.body.destroy();
        throw new FeedFetchError(`The feed is larger than ${maxBytes} bytes.`, { failure: "TOO_LARGE" });
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof FeedFetchError) throw error;
    throw networkError(error, url, total, cancel);
  }
  return Buffer.concat(chunks, size);
}
