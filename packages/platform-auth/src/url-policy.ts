import { PlatformAuthError } from "./errors.js";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Checks an auth or base URL and returns it without a trailing slash. Only https is allowed, except
 * plain http to a loopback host: traffic to 127.0.0.1/::1/localhost never leaves the machine, so
 * TLS adds nothing there, and it lets the local emulator run without certificates. Any other http
 * URL would send the client secret and tokens in clear text, so it is refused.
 */
export function checkServiceUrl(label: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PlatformAuthError(
      "PA_CONFIG_INVALID",
      `${label} ${JSON.stringify(value)} is not a URL; expected e.g. https://platform.adobe.io`,
    );
  }
  // Checked before anything echoes the URL back, so that embedded credentials are never printed.
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
    throw new PlatformAuthError(
      "PA_CONFIG_INVALID",
      `${label} must be a plain origin and optional path, without credentials, query or fragment`,
    );
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new PlatformAuthError(
      "PA_CONFIG_INVALID",
      `${label} ${JSON.stringify(value)} is not allowed: use https (plain http is accepted only for 127.0.0.1, ::1 and localhost)`,
    );
  }
  return url.href.replace(/\/+$/, "");
}
