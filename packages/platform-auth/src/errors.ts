import { FAILURE_REASONS, type FailureReasonCode } from "./failure-reasons.js";

/**
 * The one error type of platform-auth. Every failure — bad configuration, a refused token request,
 * an error answer from a Platform service, a network fault — is a `PlatformAuthError` with a stable
 * string `code` (ours) and, when a remote service answered, its HTTP `status`, the service's own
 * `serviceCode`, and the `requestId` to quote to support.
 *
 * Messages never carry the client secret, the private key or an access token: they are built from
 * setting *names* and from remote error bodies that pass through {@link redactSecrets} first.
 *
 * @example
 * try { await client.json("/data/foundation/schemaregistry/global/classes"); }
 * catch (err) {
 *   if (err instanceof PlatformAuthError && err.code === "PA_API_ERROR") console.error(err.status, err.requestId);
 * }
 */
export class PlatformAuthError extends Error {
  override readonly name = "PlatformAuthError";
  readonly code: PlatformAuthErrorCode;
  /** HTTP status of the answer that caused the error, when there was one. */
  readonly status: number | undefined;
  /** The remote service's own error code (`invalid_client`, `401013`, `XDM-1010-400`, ...). */
  readonly serviceCode: string | undefined;
  /** `x-request-id` / `x-debug-id` of the failed answer, for support tickets. */
  readonly requestId: string | undefined;
  /** Which failure exactly, when the service's answer says (see failure-reasons.ts). */
  readonly reason: FailureReasonCode | undefined;

  constructor(
    code: PlatformAuthErrorCode,
    message: string,
    details: {
      status?: number;
      serviceCode?: string;
      requestId?: string;
      reason?: FailureReasonCode;
      cause?: unknown;
    } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.status = details.status;
    this.serviceCode = details.serviceCode;
    this.requestId = details.requestId;
    this.reason = details.reason;
  }

  /** The fix of {@link PlatformAuthError.reason}, in one sentence. */
  get fix(): string | undefined {
    return this.reason === undefined ? undefined : FAILURE_REASONS[this.reason].fix;
  }

  /** A plain object for `--json` output and logs (no stack, no cause). */
  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      status: this.status,
      serviceCode: this.serviceCode,
      requestId: this.requestId,
      reason: this.reason,
      fix: this.fix,
    };
  }
}

/** What the registry says of each code (the same shape in every package of the toolkit). */
export interface ErrorCodeInfo {
  /** What the code means, for people (the README's table repeats it; a test checks). */
  readonly description: string;
  /**
   * The command line's exit code: 2 usage or configuration, 3 credentials refused, 4 API error or
   * bad answer, 5 network or timeout.
   */
  readonly exitCode: number;
}

/** Every error code with what it means and its exit code; the README documents each one. */
export const ERROR_CODES = {
  PA_CONFIG_MISSING: {
    description: "one or more required settings are missing; the message names all of them",
    exitCode: 2,
  },
  PA_CONFIG_INVALID: {
    description: "a setting has a value that is not allowed (bad URL, unknown method, unreadable file)",
    exitCode: 2,
  },
  PA_USAGE: { description: "the command line or a call's arguments are wrong", exitCode: 2 },
  PA_AUTH_FAILED: {
    description: "the identity service refused to issue a token (bad client id, secret, scope or JWT)",
    exitCode: 3,
  },
  PA_API_ERROR: { description: "a Platform service answered with an error status", exitCode: 4 },
  PA_NETWORK: { description: "the request could not be sent or the answer could not be read", exitCode: 5 },
  PA_TIMEOUT: {
    description: "an attempt got no answer within its timeout, and retries ran out",
    exitCode: 5,
  },
  PA_BAD_RESPONSE: {
    description: "an answer was not in the expected shape (no access_token, not JSON, paging loop)",
    exitCode: 4,
  },
  PA_KEY_INVALID: {
    description: "the private key for the JWT method could not be read or used",
    exitCode: 2,
  },
  PA_LISTEN: {
    description: "the emulator could not listen on its address (the port is in use, or not allowed)",
    exitCode: 1,
  },
  PA_CACHE: {
    description: "the token cache file could not be used (wrong owner or permissions, unwritable)",
    exitCode: 2,
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type PlatformAuthErrorCode = keyof typeof ERROR_CODES;

/**
 * Replaces every occurrence of each secret in `text` with `[redacted]`. Used on anything that came
 * from elsewhere (remote error bodies, library messages) before it reaches an error or a log line,
 * because a misbehaving server may echo the credentials it was sent.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    // Very short values would redact ordinary words; real secrets are long.
    if (secret === undefined || secret.length < 6) continue;
    out = out.split(secret).join("[redacted]");
  }
  return out;
}
