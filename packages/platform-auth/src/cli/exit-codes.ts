import { PlatformAuthError, type PlatformAuthErrorCode } from "../errors.js";

/** Exit codes: 0 success, 1 other, 2 usage/configuration, 3 refused credentials, 4 API error, 5 network. */
const EXIT_CODES: Record<PlatformAuthErrorCode, number> = {
  PA_USAGE: 2,
  PA_CONFIG_MISSING: 2,
  PA_CONFIG_INVALID: 2,
  PA_KEY_INVALID: 2,
  PA_CACHE: 2,
  PA_AUTH_FAILED: 3,
  PA_API_ERROR: 4,
  PA_BAD_RESPONSE: 4,
  PA_NETWORK: 5,
  PA_TIMEOUT: 5,
};

/** Writes one error line (plus details with --verbose) and returns the exit code; never a stack. */
export function reportError(err: unknown, stderr: (t: string) => void, verbose: boolean): number {
  if (err instanceof PlatformAuthError) {
    stderr(`platform-auth: ${err.message} [${err.code}]\n`);
    if (verbose) {
      const details = [
        err.status !== undefined ? `status ${err.status}` : "",
        err.serviceCode ? `service code ${err.serviceCode}` : "",
        err.requestId ? `request id ${err.requestId}` : "",
      ].filter((d) => d !== "");
      if (details.length > 0) stderr(`  ${details.join(", ")}\n`);
    }
    return EXIT_CODES[err.code];
  }
  // Not ours: print only the message; a stack could hold paths and is no use to a user.
  stderr(`platform-auth: unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}
