import { PlatformAuthError } from "./errors.js";

/**
 * The URL of a call: a path is appended to the base URL; a full URL must be on the base URL's
 * origin, because the credential headers go only to the configured platform, never to a host that
 * a reply (a `_links.next`, say) happens to name.
 */
export function resolveTarget(target: string, baseUrl: string, baseOrigin: string): string {
  if (target.startsWith("/")) return baseUrl + target;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new PlatformAuthError(
      "PA_USAGE",
      `path ${JSON.stringify(target)} must start with "/" or be a full URL`,
    );
  }
  if (url.origin !== baseOrigin) {
    throw new PlatformAuthError(
      "PA_USAGE",
      `URL ${url.origin} is not on the base URL's origin ${baseOrigin}; credentials are sent there only`,
    );
  }
  return url.href;
}

/** Bodies are sent again on retry, so only replayable ones are accepted. */
export function checkBody(body: unknown): void {
  if (
    body === undefined ||
    typeof body === "string" ||
    body instanceof Uint8Array ||
    body instanceof URLSearchParams ||
    body instanceof FormData
  ) {
    return;
  }
  throw new PlatformAuthError(
    "PA_USAGE",
    "request body must be a string, Uint8Array, URLSearchParams or FormData (sent again on retry, so streams are not allowed)",
  );
}

/** The path of a target, for error messages (no query: it may hold ids the user did not mean to log). */
export function pathOf(target: string): string {
  return target.startsWith("/") ? target.split("?")[0] : new URL(target).pathname;
}
