import { type AccessToken, expiryOf } from "./access-token.js";
import { parseErrorBody } from "./error-body.js";
import { PlatformAuthError, redactSecrets } from "./errors.js";
import { identityReason } from "./failure-reasons.js";
import type { HttpTransport } from "./http-transport.js";
import { type RetryEvent, type RetryOptions, sendWithRetries } from "./retry-policy.js";
import type { AuthMethod } from "./settings.js";

/** The fields of an identity-service token answer that we use. */
export interface TokenAnswer {
  accessToken: string;
  /** `expires_in` as sent: seconds (OAuth) or milliseconds (JWT exchange); the caller knows which. */
  expiresIn: number;
}

/**
 * POSTs a token request to the identity service and reads the answer. A refusal becomes one
 * `PA_AUTH_FAILED` error carrying the service's code (`invalid_client`, ...), its description and
 * `x-debug-id`; anything the service echoes back is scrubbed of the secrets sent.
 */
export async function requestToken(
  transport: HttpTransport,
  url: string,
  body: URLSearchParams | FormData,
  ctx: {
    secrets: string[];
    retry: Required<RetryOptions>;
    onRetry?: (e: RetryEvent) => void;
    signal?: AbortSignal;
  },
): Promise<TokenAnswer> {
  // A mint has no side effect beyond a new token, so it is retried like an idempotent call.
  const res = await sendWithRetries(
    (signal) =>
      transport.fetch(url, { method: "POST", body, headers: { accept: "application/json" }, signal }),
    {
      policy: ctx.retry,
      idempotent: true,
      onRetry: ctx.onRetry,
      signal: ctx.signal,
      target: { url, setting: "the auth URL (--auth-url, AEP_AUTH_URL)" },
    },
  );
  const text = await res.text();
  if (!res.ok) {
    const parsed = parseErrorBody(res.status, res.headers, text);
    const message = redactSecrets(parsed.message, ctx.secrets);
    const code = parsed.serviceCode ? `${parsed.serviceCode}: ` : "";
    const reason = identityReason(res.status, parsed.serviceCode, parsed.message);
    const details = {
      status: res.status,
      serviceCode: parsed.serviceCode,
      requestId: parsed.requestId,
      reason,
    };
    // Throttling and failures of the service itself say nothing about the credentials.
    if (res.status === 429 || res.status >= 500) {
      throw new PlatformAuthError(
        "PA_API_ERROR",
        `the identity service could not issue a token (HTTP ${res.status}) ${code}${message}`,
        details,
      );
    }
    throw new PlatformAuthError(
      "PA_AUTH_FAILED",
      `the identity service refused the token request (HTTP ${res.status}) ${code}${message}`,
      details,
    );
  }
  let data: { access_token?: unknown; expires_in?: unknown };
  try {
    data = JSON.parse(text);
  } catch {
    throw new PlatformAuthError(
      "PA_BAD_RESPONSE",
      `the identity service answered HTTP ${res.status} with non-JSON`,
    );
  }
  const expiresIn = typeof data.expires_in === "string" ? Number(data.expires_in) : data.expires_in;
  if (typeof data.access_token !== "string" || data.access_token === "") {
    throw new PlatformAuthError("PA_BAD_RESPONSE", "the identity service's answer has no access_token");
  }
  if (typeof expiresIn !== "number" || !Number.isFinite(expiresIn) || expiresIn <= 0) {
    throw new PlatformAuthError(
      "PA_BAD_RESPONSE",
      "the identity service's answer has no positive expires_in",
    );
  }
  return { accessToken: data.access_token, expiresIn };
}

/** What every token provider mints with: the retry policy, an optional clock and a retry observer. */
export interface TokenExchangeOptions {
  retry: Required<RetryOptions>;
  now?: () => number;
  onRetry?: (e: RetryEvent) => void;
}

/** One mint request of a method: where it goes, what it sends, and the unit of its `expires_in`. */
export interface MintRequest {
  method: AuthMethod;
  url: string;
  body: URLSearchParams | FormData;
  /** Values sent that must never appear in an error message. */
  secrets: string[];
  /** When the mint started (from `now()`), the origin of the expiry. */
  obtainedAt: number;
  /** Milliseconds per unit of the answer's `expires_in`: 1000 for OAuth (seconds), 1 for JWT (ms). */
  expiresInUnitMs: 1 | 1000;
}

/**
 * The part of minting both methods share: the transport, retries and clock, and turning the
 * identity service's answer into an `AccessToken`. Each provider only builds its own request.
 *
 * @example
 * const exchange = new TokenExchange(transport, { retry });
 * const token = await exchange.mint({ method: "oauth", url, body, secrets: [secret], obtainedAt: exchange.now(), expiresInUnitMs: 1000 });
 */
export class TokenExchange {
  readonly #transport: HttpTransport;
  readonly #retry: Required<RetryOptions>;
  readonly #now: () => number;
  readonly #onRetry: ((e: RetryEvent) => void) | undefined;

  constructor(transport: HttpTransport, opts: TokenExchangeOptions) {
    this.#transport = transport;
    this.#retry = opts.retry;
    this.#now = opts.now ?? Date.now;
    this.#onRetry = opts.onRetry;
  }

  /** The clock a mint's `obtainedAt` is read from. */
  now(): number {
    return this.#now();
  }

  async mint(request: MintRequest, signal?: AbortSignal): Promise<AccessToken> {
    const answer = await requestToken(this.#transport, request.url, request.body, {
      secrets: request.secrets,
      retry: this.#retry,
      onRetry: this.#onRetry,
      signal,
    });
    const expiresAt = expiryOf(
      answer.accessToken,
      request.obtainedAt,
      answer.expiresIn * request.expiresInUnitMs,
    );
    return {
      accessToken: answer.accessToken,
      expiresAt,
      obtainedAt: request.obtainedAt,
      method: request.method,
    };
  }
}
