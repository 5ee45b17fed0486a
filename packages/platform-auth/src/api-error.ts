import { type ParsedErrorBody, parseErrorBody } from "./error-body.js";
import { PlatformAuthError, redactSecrets } from "./errors.js";
import { apiReason } from "./failure-reasons.js";
import { pathOf } from "./request-target.js";

// The gateway's codes for a token that is invalid (401013) or expired (401014).
const INVALID_TOKEN_CODES = new Set(["401013", "401014"]);

/** Whether a 401 says the token itself is bad (worth one re-mint), not e.g. a missing permission. */
export function saysTokenInvalid(parsed: ParsedErrorBody): boolean {
  return (
    INVALID_TOKEN_CODES.has(parsed.serviceCode ?? "") ||
    /token.*(invalid|not valid|expired)/i.test(parsed.message)
  );
}

/** Turns a Platform error answer into the one error type, scrubbed of the given secrets. */
export function apiErrorFrom(
  res: Response,
  text: string,
  method: string,
  target: string,
  secrets: (string | undefined)[],
): PlatformAuthError {
  const parsed = parseErrorBody(res.status, res.headers, text);
  const message = redactSecrets(parsed.message, secrets);
  const code = parsed.serviceCode ? ` ${parsed.serviceCode}` : "";
  const rid = parsed.requestId ? ` (request id ${parsed.requestId})` : "";
  return new PlatformAuthError(
    "PA_API_ERROR",
    `${method.toUpperCase()} ${pathOf(target)} failed: HTTP ${res.status}${code}: ${message}${rid}`,
    {
      status: res.status,
      serviceCode: parsed.serviceCode,
      requestId: parsed.requestId,
      reason: apiReason(res.status, parsed.serviceCode, parsed.message),
    },
  );
}
