/**
 * The one error type of the feed service. Each adapter maps its code to a wire form: a SOAP
 * Server.userException fault, an HTTP status for JSON, a CLI exit code. Messages are written for a
 * person and never hold a stack trace, SQL text, file path or host name of the server.
 */
export const feedServiceErrorCodes = {
  /** An argument is missing or out of its allowed range (SOAP fault, HTTP 400, exit 2). */
  FEED_BAD_ARGUMENT: "an argument is missing or outside what is allowed",
  /** An id or key names nothing (SOAP fault, HTTP 404, exit 1). */
  FEED_NOT_FOUND: "an id or key names nothing",
  /** The change would duplicate a unique name, URL or key (HTTP 409, exit 1). */
  FEED_CONFLICT: "the change would duplicate something that must be unique",
  /** Fetching a feed failed (network, HTTP status, size, time). */
  FEED_FETCH_FAILED: "fetching a feed failed",
  /** A feed document could not be read. */
  FEED_PARSE_FAILED: "a feed document could not be read",
  /** The database failed or is unavailable (HTTP 503, exit 1). */
  FEED_STORE_UNAVAILABLE: "the database failed or is unavailable",
  /** A query ran past the query deadline and was stopped (SOAP fault, HTTP 503, exit 1). */
  FEED_QUERY_TIMEOUT: "a query ran past the query deadline and was stopped",
  /** Too many queries are waiting already; the call was refused at once (SOAP fault, HTTP 503 with Retry-After). */
  FEED_OVERLOADED: "too many queries are waiting; the call was refused at once",
  /**
   * An unexpected failure (a bug, a driver error), never thrown as such: the code JSON and feed
   * clients see in a 500 problem, whose detail is generic while the cause stays in the server's log.
   */
  FEED_INTERNAL_ERROR: "an unexpected failure; the details stay in the server's log",
} as const;

export type FeedServiceErrorCode = keyof typeof feedServiceErrorCodes;

export class FeedServiceError extends Error {
  readonly code: FeedServiceErrorCode;
  constructor(code: FeedServiceErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "FeedServiceError";
    this.code = code;
  }
}

/** Shorthand for the most common error: a bad argument, with a message that names it. */
export function badArgument(message: string): FeedServiceError {
  return new FeedServiceError("FEED_BAD_ARGUMENT", message);
}
