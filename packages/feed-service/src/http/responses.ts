/** The small plain-text responses the server sends besides its adapters' own (404 pages, errors). */
import type { FastifyReply } from "fastify";

export function sendText(
  reply: FastifyReply,
  status: number,
  text: string,
  headers?: Record<string, string>,
): void {
  reply.code(status).header("content-type", "text/plain; charset=utf-8");
  if (headers) reply.headers(headers);
  reply.send(text);
}
