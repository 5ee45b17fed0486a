/**
 * A failed fetch, with what the scheduler needs to decide the next attempt: the HTTP status (if
 * one came back) and how long the server asked us to wait (`Retry-After` on 429/503), and the
 * failure code recorded on the feed (see `failure-codes.ts`).
 */
import { FeedServiceError } from "../errors.js";
import { type CodedFailure, type FailureCode, httpFailureCode } from "./failure-codes.js";

export class FeedFetchError extends FeedServiceError implements CodedFailure {
  readonly httpStatus: number | null;
  readonly retryAfterMs: number | null;
  readonly failure: FailureCode;
  constructor(
    message: string,
    opts: { failure?: FailureCode; httpStatus?: number; retryAfterMs?: number | null; cause?: unknown } = {},
  ) {
    super("FEED_FETCH_FAILED", message, { cause: opts.cause });
    this.name = "FeedFetchError";
    this.httpStatus = opts.httpStatus ?? null;
    this.retryAfterMs = opts.retryAfterMs ?? null;
    this.failure =
      opts.failure ?? (opts.httpStatus !== undefined ? httpFailureCode(opts.httpStatus) : "FETCH_FAILED");
  }
}

/**
 * Reads a `Retry-After` value (RFC 9110 §10.2.3): delay-seconds or an HTTP date.
 *
 * @example
 * retryAfterMs("120", Date.now()); // 120000
 */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}
