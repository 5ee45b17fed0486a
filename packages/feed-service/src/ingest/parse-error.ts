/**
 * A document that the decode or parse stage cannot read, with the failure code recorded on the
 * feed (`NOT_TEXT`, `PARSE_NOT_A_FEED`, `PARSE_MALFORMED`, ...). Its package code stays
 * `FEED_PARSE_FAILED`, so callers that only know the package's errors see no change.
 */
import { FeedServiceError } from "../errors.js";
import type { CodedFailure, FailureCode } from "./failure-codes.js";

export class FeedParseError extends FeedServiceError implements CodedFailure {
  readonly failure: FailureCode;
  constructor(failure: FailureCode, message: string, options?: { cause?: unknown }) {
    super("FEED_PARSE_FAILED", message, options);
    this.name = "FeedParseError";
    this.failure = failure;
  }
}
