/**
 * The HTTP pieces of the admin pages and /suggest (spec §5.5): form bodies (urlencoded, and
 * multipart for the OPML upload) read from the raw bytes the service's one body parser keeps,
 * cookies, the same-origin check, the client's hashed address, and the answer with the pages'
 * security headers and `Cache-Control: no-store`.
 */
import { createHash, createHmac } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Store } from "../../store/store.js";
import type { Html } from "../html.js";
import { pageSecurityHeaders } from "../security-headers.js";

/** A form's fields; a name given twice (checkboxes) keeps every value. */
export type FormFields = Map<string, string[]>;

export function field(form: FormFields, name: string): string {
  return form.get(name)?.[0] ?? "";
}

function bodyBytes(request: FastifyRequest): Buffer {
  const body = request.body;
  if (Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body);
  return Buffer.alloc(0);
}

function contentType(request: FastifyRequest): string {
  return String(request.headers["content-type"] ?? "").toLowerCase();
}

/** The fields of an `application/x-www-form-urlencoded` or `multipart/form-data` body. */
export function readForm(request: FastifyRequest): { fields: FormFields; files: Map<string, Buffer> } {
  const fields: FormFields = new Map();
  const files = new Map<string, Buffer>();
  const add = (name: string, value: string) => fields.set(name, [...(fields.get(name) ?? []), value]);
  const type = contentType(request);
  const bytes = bodyBytes(request);
  const boundary = /^multipart\/form-data;.*\bboundary=(?:"([^"]+)"|([^;\s]+))/.exec(type);
  if (boundary) {
    for (const part of multipartParts(bytes, boundary[1] ?? boundary[2]!)) {
      if (part.filename !== null) files.set(part.name, part.body);
      else add(part.name, part.body.toString("utf8"));
    }
  } else if (type.startsWith("application/x-www-form-urlencoded")) {
    for (const [name, value] of new URLSearchParams(bytes.toString("utf8"))) add(name, value);
  }
  return { fields, files };
}

interface Part {
  name: string;
  filename: string | null;
  body: Buffer;
}

/** The parts of a multipart body (RFC 7578): headers, a blank line, the bytes up to the next boundary. */
function multipartParts(bytes: Buffer, boundary: string): Part[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Part[] = [];
  let at = bytes.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (bytes.subarray(start, start + 2).toString() === "--") break;
    const next = bytes.indexOf(delimiter, start);
    if (next === -1) break;
    const chunk = bytes.subarray(start + 2, next - 2); // after CRLF, before CRLF
    const split = chunk.indexOf("\r\n\r\n");
    if (split !== -1) {
      const head = chunk.subarray(0, split).toString("utf8");
      const disposition = /content-disposition:[^\r\n]*/i.exec(head)?.[0] ?? "";
      const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
      const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1] ?? null;
      if (name !== undefined) parts.push({ name, filename, body: chunk.subarray(split + 4) });
    }
    at = next;
  }
  return parts;
}

/** The value of one cookie of the request, or undefined. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = String(request.headers.cookie ?? "");
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq !== -1 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}

/** A cookie for the admin pages: HttpOnly, SameSite=Strict, Path=/admin, Secure on an https site. */
export function adminCookie(name: string, value: string, secure: boolean, maxAgeSeconds?: number): string {
  const parts = [`${name}=${value}`, "Path=/admin", "HttpOnly", "SameSite=Strict"];
  if (secure) parts.push("Secure");
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  return parts.join("; ");
}

/**
 * True when a POST comes from a page of this site: its Origin (or, without one, its Referer) has
 * the site's origin. A request naming neither is refused: every browser that runs the forms sends
 * Origin on a POST.
 */
export function sameOrigin(request: FastifyRequest, baseUrl: string): boolean {
  const expected = new URL(baseUrl).origin;
  const origin = request.headers.origin;
  if (typeof origin === "string" && origin !== "") return origin === expected;
  const referer = request.headers.referer;
  if (typeof referer !== "string" || referer === "") return false;
  try {
    return new URL(referer).origin === expected;
  } catch {
    return false;
  }
}

/** SHA-256 of a session id: the store keeps only this, so a copy of the database opens no session. */
export function sessionIdHash(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

/** The client's address as HMAC-SHA256 under the install secret (as clicks are counted). */
export function clientHasher(store: Store): (request: FastifyRequest) => Promise<string> {
  let secret: Promise<string> | undefined;
  return async (request) => {
    secret ??= store.installSecret();
    try {
      return createHmac("sha256", await secret)
        .update(request.socket.remoteAddress ?? "unknown")
        .digest("hex");
    } catch (error) {
      secret = undefined;
      throw error;
    }
  };
}

/** Answers a page: the public pages' headers (CSP with frame-ancestors 'none') and no caching anywhere. */
export function sendPage(reply: FastifyReply, status: number, body: Html): void {
  reply
    .code(status)
    .headers(pageSecurityHeaders)
    .header("Cache-Control", "no-store")
    .type("text/html; charset=utf-8")
    .send(body.toString());
}

/** A 303 to another page of the site (after a POST: the browser GETs the result). */
export function redirect(reply: FastifyReply, location: string): void {
  reply.code(303).header("Location", location).header("Cache-Control", "no-store").send();
}
