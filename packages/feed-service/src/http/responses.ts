/** The small plain responses the server sends besides its adapters' own (404 pages, health, errors). */
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

export function sendJson(reply: FastifyReply, status: number, value: unknown): void {
  reply
    .code(status)
    .header("content-type", "application/json; charset=utf-8")
    .header("cache-control", "no-store")
    .send(JSON.stringify(value));
}
