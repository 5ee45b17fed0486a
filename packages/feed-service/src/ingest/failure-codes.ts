/**
 * Why a feed's refresh failed, as a stable code and the stage it failed in, recorded on the feed
 * next to the message for people: scripts and dashboards (`feeds list --json`) group and alert on
 * the code, which never changes wording. The set is small on purpose (Miniflux and feedparser
 * report about as many kinds); anything without a code of its own falls under its stage's
 * catch-all (`FETCH_FAILED`, `HTTP_4XX`, `PARSE_FAILED`, `STORE_FAILED`) or `INTERNAL` (a bug).
 * The package README lists every code; a test checks that it does.
 */
import { FeedServiceError } from "../errors.js";

export type FailureStage = "fetch" | "http" | "decode" | "parse" | "store";

export const failureCodes = {
  FETCH_TIMEOUT: {
    stage: "fetch",
    description: "connecting, the first byte or the whole fetch took too long",
  },
  DNS: { stage: "fetch", description: "the host name was not found" },
  CONNECTION_REFUSED: { stage: "fetch", description: "the server refused the connection" },
  CONNECTION_RESET: { stage: "fetch", description: "the server closed the connection mid-way" },
  TLS: {
    stage: "fetch",
    description: "the TLS handshake failed (certificate expired, untrusted or for another name)",
  },
  TOO_LARGE: { stage: "fetch", description: "the body is over the size cap (10 MiB), compressed or not" },
  BAD_COMPRESSION: { stage: "fetch", description: "the body's gzip, deflate or br compression is corrupt" },
  BAD_URL: { stage: "fetch", description: "the feed URL (or a redirect's) is not an absolute http(s) URL" },
  ADDRESS_REFUSED: {
    stage: "fetch",
    description:
      "the host is (or resolves to) a loopback, private, link-local or other non-public address, and --allow-private-fetch is off",
  },
  FETCH_FAILED: { stage: "fetch", description: "another network failure" },
  HTTP_401: { stage: "http", description: "the server wants credentials" },
  HTTP_403: { stage: "http", description: "the server refuses access" },
  HTTP_404: { stage: "http", description: "no document at this URL" },
  HTTP_410: { stage: "http", description: "the feed is gone for good" },
  HTTP_429: { stage: "http", description: "too many requests; the next fetch honours Retry-After" },
  HTTP_4XX: { stage: "http", description: "another 4xx status" },
  HTTP_5XX: { stage: "http", description: "a server error status (500-599; 503 honours Retry-After)" },
  TOO_MANY_REDIRECTS: { stage: "http", description: "more than 5 redirects" },
  BAD_REDIRECT: {
    stage: "http",
    description: "a redirect status without a Location, or another unusable status",
  },
  NOT_TEXT: {
    stage: "decode",
    description: "the body is binary (an image, an archive), not a text document",
  },
  PARSE_NOT_A_FEED: { stage: "parse", description: "the document is an HTML page, or neither XML nor JSON" },
  PARSE_MALFORMED: { stage: "parse", description: "XML or JSON that no repair makes a readable feed" },
  PARSE_FAILED: {
    stage: "parse",
    description: "the parser failed otherwise (its worker stopped, for instance)",
  },
  STORE_FAILED: { stage: "store", description: "the database refused the refresh's writes" },
  INTERNAL: { stage: null, description: "an unexpected failure (a bug); the stage says where" },
} as const satisfies Record<string, { stage: FailureStage | null; description: string }>;

export type FailureCode = keyof typeof failureCodes;

/** One failed refresh, as recorded on its feed. */
export interface FeedFailure {
  stage: FailureStage;
  code: FailureCode;
  /** For people: names what went wrong; no stack trace, SQL or path. */
  message: string;
}

/** True for a code of this set (a code read back from a worker thread or a database). */
export function isFailureCode(code: unknown): code is FailureCode {
  return typeof code === "string" && Object.hasOwn(failureCodes, code);
}

/** A code for an HTTP status that is neither success, 304 nor a followed redirect. */
export function httpFailureCode(status: number): FailureCode {
  if (status === 401 || status === 403 || status === 404 || status === 410 || status === 429)
    return `HTTP_${status}`;
  if (status >= 500 && status <= 599) return "HTTP_5XX";
  if (status >= 400 && status <= 499) return "HTTP_4XX";
  return "BAD_REDIRECT";
}

/** An error that knows its failure code (the fetcher's and the parser's). */
export interface CodedFailure {
  readonly failure: FailureCode;
}

function hasFailureCode(error: unknown): error is Error & CodedFailure {
  return error instanceof Error && isFailureCode((error as Partial<CodedFailure>).failure);
}

/**
 * The failure to record for an error thrown in one of the refresh's steps (`fetch`, `parse`,
 * `store`): the error's own code when it has one, else its step's catch-all; an error that is not
 * the package's own is a bug, recorded as `INTERNAL` with a generic message.
 *
 * @example
 * failureOf("store", new FeedServiceError("FEED_NOT_FOUND", "No feed has id 3."));
 * // { stage: "store", code: "STORE_FAILED", message: "No feed has id 3." }
 */
export function failureOf(step: "fetch" | "parse" | "store", error: unknown): FeedFailure {
  if (hasFailureCode(error))
    return { stage: failureCodes[error.failure].stage ?? step, code: error.failure, message: error.message };
  if (!(error instanceof FeedServiceError))
    return { stage: step, code: "INTERNAL", message: "Unexpected failure while reading the feed." };
  const code: FailureCode =
    step === "fetch" ? "FETCH_FAILED" : step === "parse" ? "PARSE_FAILED" : "STORE_FAILED";
  return { stage: step, code, message: error.message };
}
