import { ERROR_CODES, PlatformAuthError } from "../errors.js";

/** Writes one error line (plus details with --verbose) and returns the exit code; never a stack. */
export function reportError(err: unknown, stderr: (t: string) => void, verbose: boolean): number {
  if (err instanceof PlatformAuthError) {
    stderr(`platform-auth: ${err.message} [${err.code}]\n`);
    if (err.fix) stderr(`  fix (${err.reason}): ${err.fix}\n`);
    if (verbose) {
      const details = [
        err.status !== undefined ? `status ${err.status}` : "",
        err.serviceCode ? `service code ${err.serviceCode}` : "",
        err.requestId ? `request id ${err.requestId}` : "",
      ].filter((d) => d !== "");
      if (details.length > 0) stderr(`  ${details.join(", ")}\n`);
    }
    // 0 is success and 1 any failure that is not ours; each code's own is in the registry.
    return ERROR_CODES[err.code].exitCode;
  }
  // Not ours: print only the message; a stack could hold paths and is no use to a user.
  stderr(`platform-auth: unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}
