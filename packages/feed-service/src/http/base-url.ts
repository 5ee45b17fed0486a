/**
 * The absolute base URL the service is reached at, for `soap:address` in the WSDL and for tracking
 * links: the configured public URL when there is one (spec §1), else built from the request's Host.
 */
import type { IncomingMessage } from "node:http";
import { badArgument } from "../errors.js";

// A Host header is client input that ends up in documents we serve: accept host names, IPv4,
// bracketed IPv6 and a port, nothing else (no spaces, quotes, slashes or angle brackets).
const safeHost = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * Normalises a configured public URL: http(s) only, no query or fragment, no trailing slash. The
 * one check of `--public-url` (FEED_SERVICE_PUBLIC_URL): a bad one is a FEED_BAD_ARGUMENT.
 */
export function normalisePublicUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badArgument(
      `The public URL (--public-url) must be an absolute http or https URL such as https://feeds.example.org; got ${JSON.stringify(text)}.`,
    );
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash) {
    throw badArgument(
      `The public URL (--public-url) must be an absolute http or https URL without a query or fragment; got ${JSON.stringify(text)}.`,
    );
  }
  return url.href.replace(/\/+$/, "");
}

/** The base URL for one request (no trailing slash). */
export function requestBaseUrl(req: IncomingMessage, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl;
  const host = req.headers.host;
  if (host && safeHost.test(host)) return `http://${host}`;
  const address = req.socket.localAddress ?? "127.0.0.1";
  const shown = address.includes(":") ? `[${address}]` : address;
  return `http://${shown}:${req.socket.localPort ?? 80}`;
}
