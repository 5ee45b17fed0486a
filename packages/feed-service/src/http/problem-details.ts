/**
 * Errors of the HTTP adapters (JSON API, output feeds) as RFC 9457 `application/problem+json`
 * (spec §5.1): a bad argument 400, an id or key that names nothing 404, a database that does not
 * answer, a query past its deadline or a full query queue 503 (the last two with `Retry-After`),
 * anything else 500 with a generic detail. `detail` is the same person-readable message a SOAP
 * client gets in its fault string.
 */
import { STATUS_CODES } from "node:http";
import { internalErrorMessage } from "@feed-toolkit/soap";
import type { FastifyReply } from "fastify";
import {
  errorCodeInfo,
  FeedServiceError,
  type FeedServiceErrorCode,
  feedServiceErrorCodes,
} from "../errors.js";
import { describeOperationError } from "../operations/operation-runner.js";
import { escapeJsonMarkup } from "./json-text.js";

export const problemContentType = "application/problem+json; charset=utf-8";

/** Seconds a client should wait before asking again, by code (from the error registry). */
export const retryAfterSeconds: Partial<Record<FeedServiceErrorCode, number>> = Object.fromEntries(
  Object.keys(feedServiceErrorCodes).flatMap((code) => {
    const wait = errorCodeInfo(code as FeedServiceErrorCode).retryAfterSeconds;
    return wait === undefined ? [] : [[code, wait]];
  }),
);

export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  /** The FeedServiceError code, for programs that branch on the cause (an RFC 9457 extension member). */
  readonly code: string;
}

/** The problem document and Retry-After (seconds, or undefined) for an error of an operation. */
export function problemFor(error: unknown): { problem: Problem; retryAfter: number | undefined } {
  const code = error instanceof FeedServiceError ? error.code : undefined;
  const status = (code && errorCodeInfo(code).httpStatus) || 500;
  const detail =
    status === 500 ? internalErrorMessage : (describeOperationError(error) ?? internalErrorMessage);
  return {
    // "about:blank": the status says what kind of problem it is (RFC 9457 §4.2.1); `code` says more.
    problem: {
      type: "about:blank",
      title: STATUS_CODES[status] ?? "Error",
      status,
      detail,
      code: status === 500 ? "FEED_INTERNAL_ERROR" : (code ?? "FEED_INTERNAL_ERROR"),
    },
    retryAfter: code ? retryAfterSeconds[code] : undefined,
  };
}

/** A problem document with a status and detail of the adapter's own (a route that does not exist). */
export function plainProblem(status: number, detail: string, code: string): Problem {
  return { type: "about:blank", title: STATUS_CODES[status] ?? "Error", status, detail, code };
}

export function sendProblem(reply: FastifyReply, problem: Problem, retryAfter?: number): void {
  reply.code(problem.status).header("content-type", problemContentType).header("cache-control", "no-store");
  if (retryAfter !== undefined) reply.header("retry-after", String(retryAfter));
  reply.send(escapeJsonMarkup(JSON.stringify(problem)));
}

/** Answers an error raised by an operation; errors meant for nobody but the server go to `logError`. */
export function sendOperationError(
  reply: FastifyReply,
  error: unknown,
  logError: (message: string) => void,
  where: string,
): void {
  const { problem, retryAfter } = problemFor(error);
  if (problem.status === 500) {
    logError(`${where} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  sendProblem(reply, problem, retryAfter);
}
