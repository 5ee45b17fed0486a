/**
 * What each failure the identity service, the gateway or the network can give us means, as a
 * stable reason code and a fix in one sentence. The error codes of errors.ts say which kind of
 * failure it was (and the exit code); a reason says which one exactly and what to do about it.
 * Sources: the platform's API troubleshooting guide (401013, 403000, 403003, 403025, 403027),
 * the identity service's OAuth errors (RFC 6749 §5.2), and the Developer Console's credential pages.
 */
export interface FailureReason {
  /** What happened, for people (the README's table repeats it; a test checks). */
  readonly meaning: string;
  /** The fix, in one sentence. */
  readonly fix: string;
}

/**
 * Every reason with what it means and its fix; the README documents each one.
 *
 * @example
 * catch (err) {
 *   if (err instanceof PlatformAuthError && err.reason === "no_product_profile") console.error(err.fix);
 * }
 */
export const FAILURE_REASONS = {
  invalid_client_id: {
    meaning: "the identity service does not know the client id",
    fix: "Copy the Client ID of the project's OAuth Server-to-Server credential from the Developer Console, and check that the auth URL is the environment the project lives in (production: https://ims-na1.adobelogin.com).",
  },
  invalid_client_secret: {
    meaning: "the client secret is not (or no longer) accepted for this client id",
    fix: "Retrieve a current client secret in the Developer Console (project → OAuth Server-to-Server → Retrieve client secret); during a rotation list both secrets in AEP_CLIENT_SECRETS.",
  },
  invalid_client: {
    meaning: "the identity service refused the client id or secret",
    fix: "Copy the Client ID and a current client secret of the project's OAuth Server-to-Server credential from the Developer Console.",
  },
  invalid_scope: {
    meaning: "a requested scope is not granted to this credential",
    fix: "Ask only for the scopes listed on the credential in the Developer Console (for Platform: openid,session,AdobeID,read_organizations,additional_info.projectedProductContext); fix --scopes or AEP_SCOPES.",
  },
  invalid_request: {
    meaning: "the token request was malformed or used a grant the service does not allow",
    fix: "Check the auth URL points at the identity service itself (no extra path), and report the debug id if it persists.",
  },
  invalid_jwt: {
    meaning: "the JWT exchange refused the signed assertion (key, technical account, metascopes or expiry)",
    fix: "JWT credentials ended in 2025: create an OAuth Server-to-Server credential in the Developer Console and use the oauth method.",
  },
  identity_throttled: {
    meaning: "the identity service throttles this credential's token requests",
    fix: "Reuse cached tokens instead of minting for each run (drop --no-cache from loops) and try again after the Retry-After time.",
  },
  identity_unavailable: {
    meaning: "the identity service failed (internal_error or 5xx) after the retries",
    fix: "Try again in a few minutes and check https://status.adobe.com; quote the debug id if it lasts.",
  },
  token_rejected: {
    meaning:
      "the gateway refused the token (401013/401014): revoked, expired, or minted for another org or environment",
    fix: "Mint a new token (platform-auth token --no-cache) from the auth URL of the same environment as the base URL, with the client id of this org's project.",
  },
  api_key_missing: {
    meaning: "the call had no x-api-key header (403000)",
    fix: "Send the credential's client id as x-api-key (the client adds it; hand-written calls: platform-auth headers).",
  },
  api_key_mismatch: {
    meaning: "x-api-key is not the client id the token was minted for (403003)",
    fix: "Use the client id and the token of the same credential; a token from another project needs that project's client id.",
  },
  org_not_entitled: {
    meaning: "the credential is not entitled to Experience Platform in the org of x-gw-ims-org-id (403025)",
    fix: "Set the org id to the org of the credential's project (…@AdobeOrg, on the credential's page in the Developer Console), and make sure the project has the Experience Platform API added.",
  },
  no_product_profile: {
    meaning: "the credential has no Experience Platform product profile (403027)",
    fix: "In the Developer Console add a product profile to the Experience Platform API of the project (or ask an admin to assign the technical account to one in the Admin Console).",
  },
  permission_missing: {
    meaning: "the credential's product profile does not grant this call (403)",
    fix: "Ask an admin to add the needed permission (and the sandbox) to the credential's product profile in Admin Console → Experience Platform → Permissions.",
  },
  sandbox_unknown: {
    meaning: "the sandbox does not exist, or the product profile does not grant it",
    fix: "Check the sandbox name (lowercase, as in Platform → Sandboxes) and that the credential's product profile includes that sandbox.",
  },
  throttled: {
    meaning: "Platform throttled the calls (429); the limit is shared by every app using the same project",
    fix: "Slow down or spread the calls of every app that shares this credential, honour Retry-After (the client does), and watch platform-auth usage.",
  },
  service_failed: {
    meaning: "a Platform service failed (5xx) after the retries",
    fix: "Try again later and check https://status.adobe.com; quote the request id if it lasts.",
  },
  unreachable: {
    meaning: "no answer came: refused, unresolved, blocked port, TLS or proxy trouble",
    fix: "Check the URL in the message (--auth-url/--base-url), the network, HTTPS_PROXY and --ca-file.",
  },
  timeout: {
    meaning: "the service did not answer within the attempt timeout",
    fix: "Try again; if it lasts, check the network path and proxy, or raise the retry timeout (retry.attemptTimeoutMs).",
  },
} as const satisfies Record<string, FailureReason>;

export type FailureReasonCode = keyof typeof FAILURE_REASONS;

/** The reason of an identity-service refusal (a token request), from its status and OAuth code. */
export function identityReason(status: number, code: string | undefined, message: string): FailureReasonCode {
  if (status === 429) return "identity_throttled";
  if (status >= 500 || code === "internal_error" || code === "server_error") return "identity_unavailable";
  if (code === "invalid_client") {
    if (/secret/i.test(message)) return "invalid_client_secret";
    if (/client_id|client id/i.test(message)) return "invalid_client_id";
    return "invalid_client";
  }
  if (code === "invalid_scope") return "invalid_scope";
  if (code === "invalid_token" || code === "invalid_grant") return "invalid_jwt";
  return code === "unauthorized_client" ? "invalid_client" : "invalid_request";
}

/** The reason of an API error answer, when it is one the credentials can explain. */
export function apiReason(
  status: number,
  code: string | undefined,
  message: string,
): FailureReasonCode | undefined {
  if (status === 401 && (code === "401013" || code === "401014" || /token/i.test(message)))
    return "token_rejected";
  if (status === 429) return "throttled";
  if (status >= 500) return "service_failed";
  if (status !== 403) return undefined;
  if (code === "403000") return "api_key_missing";
  if (code === "403003") return "api_key_mismatch";
  if (code === "403025") return "org_not_entitled";
  if (code === "403027") return "no_product_profile";
  if (/sandbox/i.test(message)) return "sandbox_unknown";
  return "permission_missing";
}
