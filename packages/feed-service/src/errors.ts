/** What the registry says of each code (the same shape in every package of the toolkit). */
export interface ErrorCodeInfo {
  /** What the code means, for people (the README's table repeats it; a test checks). */
  readonly description: string;
  /** The command line's exit code for it. */
  readonly exitCode: number;
  /** The SOAP fault an operation raising it becomes (`server`: Server.userException). */
  readonly soapFault?: "client" | "server";
  /** The status of the JSON API's and the feeds' problem answer (500 when left out). */
  readonly httpStatus?: number;
  /** How long those answers ask a client to wait before trying again. */
  readonly retryAfterSeconds?: number;
}

/**
 * The codes of the one error type of the feed service, each with its wire forms: a SOAP
 * Server.userException fault, an HTTP status for JSON and feeds, a CLI exit code. Messages are
 * written for a person and never hold a stack trace, SQL text, file path or host name. A full
 * queue empties within a moment; a query past its deadline would likely pass it again at once, so
 * that client waits longer.
 */
export const feedServiceErrorCodes = {
  FEED_BAD_ARGUMENT: {
    description: "an argument is missing or outside what is allowed",
    exitCode: 2,
    soapFault: "server",
    httpStatus: 400,
  },
  FEED_NOT_FOUND: {
    description: "an id or key names nothing",
    exitCode: 1,
    soapFault: "server",
    httpStatus: 404,
  },
  FEED_CONFLICT: { description: "the change would duplicate a unique name, URL or key", exitCode: 1 },
  /** Never thrown: the code of the 405 problem of the JSON API and the output feeds. */
  FEED_METHOD_NOT_ALLOWED: {
    description: "the path exists but does not answer this HTTP method (`Allow` lists those it does)",
    exitCode: 1,
    httpStatus: 405,
  },
  FEED_FETCH_FAILED: { description: "fetching a feed failed", exitCode: 1 },
  FEED_PARSE_FAILED: { description: "a feed document could not be read", exitCode: 1 },
  FEED_STORE_UNAVAILABLE: {
    description: "the database failed or is unavailable",
    exitCode: 1,
    soapFault: "server",
    httpStatus: 503,
    retryAfterSeconds: 5,
  },
  FEED_QUERY_TIMEOUT: {
    description: "a query ran past the query deadline (`--query-timeout`) and was stopped",
    exitCode: 1,
    soapFault: "server",
    httpStatus: 503,
    retryAfterSeconds: 10,
  },
  FEED_OVERLOADED: {
    description: "too many queries are waiting; the call was refused at once",
    exitCode: 1,
    soapFault: "server",
    httpStatus: 503,
    retryAfterSeconds: 1,
  },
  /** Never thrown as such: the code of the generic 500 problem (the cause stays in the log). */
  FEED_INTERNAL_ERROR: {
    description: "an unexpected failure (a bug, a driver error); the details stay in the server's log",
    exitCode: 1,
    soapFault: "server",
    httpStatus: 500,
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type FeedServiceErrorCode = keyof typeof feedServiceErrorCodes;

/** The registry's entry of a code. */
export function errorCodeInfo(code: FeedServiceErrorCode): ErrorCodeInfo {
  return feedServiceErrorCodes[code];
}

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
