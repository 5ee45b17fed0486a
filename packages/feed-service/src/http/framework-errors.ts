/**
 * Requests Fastify refuses before any route or hook runs: a path that does not decode (`/%zz`),
 * for instance. Fastify's own answer is a JSON object that echoes the path, without the headers
 * every other answer carries; here it is answered as the routes answer errors: a problem document
 * under /api/ and /feeds/, short plain text elsewhere, `nosniff` on both, nothing echoed.
 */
import { STATUS_CODES } from "node:http";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { plainProblem, sendProblem } from "./problem-details.js";
import { sendText } from "./responses.js";

export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const status =
    error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  const detail =
    error.code === "FST_ERR_BAD_URL"
      ? "The request's path is not a valid URL path (a % must be followed by two hexadecimal digits)."
      : `The request could not be read (${STATUS_CODES[status] ?? "Bad Request"}).`;
  reply.header("x-content-type-options", "nosniff");
  const url = request.raw.url ?? "";
  if (url.startsWith("/api/") || url.startsWith("/feeds/")) {
    reply.header("access-control-allow-origin", "*");
    sendProblem(reply, plainProblem(status, detail, "FEED_BAD_ARGUMENT"));
  } else {
    sendText(reply, status, `${detail}\n`);
  }
}
