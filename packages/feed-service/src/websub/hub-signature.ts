/**
 * Checking a pushed body's `X-Hub-Signature` (W3C WebSub Recommendation §7.1): `method=hexdigest`,
 * the HMAC of the raw body with the subscription's hub.secret. The methods are those §7.1.1
 * recognises (sha1, sha256, sha384, sha512); the digests are compared in constant time.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

const methods = new Set(["sha1", "sha256", "sha384", "sha512"]);

/**
 * True when `header` is a valid signature of `body` under `secret`. A missing or malformed header,
 * an unknown method or a digest of the wrong length is simply not valid.
 *
 * @example
 * hubSignatureIsValid(req.headers["x-hub-signature"], rawBody, subscription.secret);
 */
export function hubSignatureIsValid(
  header: string | string[] | undefined,
  body: Uint8Array,
  secret: string,
): boolean {
  if (typeof header !== "string") return false;
  const match = /^\s*([A-Za-z0-9]+)=([0-9A-Fa-f]+)\s*$/.exec(header);
  if (!match) return false;
  const method = match[1]!.toLowerCase();
  if (!methods.has(method)) return false;
  const expected = createHmac(method, secret).update(body).digest();
  const given = Buffer.from(match[2]!, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The header a hub sends for `body` (tests and the example session use it). */
export function hubSignature(
  method: "sha1" | "sha256" | "sha384" | "sha512",
  body: Uint8Array,
  secret: string,
) {
  return `${method}=${createHmac(method, secret).update(body).digest("hex")}`;
}
