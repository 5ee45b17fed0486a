/** The small plain responses the server sends besides SOAP (404 pages, health, errors). */
import type { ServerResponse } from "node:http";

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers?: Record<string, string>,
): void {
  res.writeHead(status, {
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    "Cache-Control": "no-store",
  });
  res.end(text);
}
