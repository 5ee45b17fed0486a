import { type AccessToken, expiryOf } from "./access-token.js";
import type { HttpTransport } from "./http-transport.js";
import { requestToken } from "./identity-exchange.js";
import type { RetryEvent, RetryOptions } from "./retry-policy.js";
import type { TokenProvider } from "./token-provider.js";

export interface OAuthCredentials {
  authUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
}

/**
 * OAuth server-to-server: `POST {auth_url}/ims/token/v3`, urlencoded, `grant_type=client_credentials`.
 * There is no refresh token; a new token is minted the same way. `expires_in` is in **seconds**.
 *
 * @example
 * const provider = new OAuthTokenProvider({ authUrl, clientId, clientSecret, scopes: ["openid"] }, transport);
 * const { accessToken, expiresAt } = await provider.mint();
 */
export class OAuthTokenProvider implements TokenProvider {
  readonly method = "oauth" as const;
  // Private fields: a logged or inspected provider shows no secret.
  readonly #creds: OAuthCredentials;
  readonly #transport: HttpTransport;
  readonly #retry: Required<RetryOptions>;
  readonly #now: () => number;
  readonly #onRetry: ((e: RetryEvent) => void) | undefined;

  constructor(
    creds: OAuthCredentials,
    transport: HttpTransport,
    opts: { retry: Required<RetryOptions>; now?: () => number; onRetry?: (e: RetryEvent) => void },
  ) {
    this.#creds = creds;
    this.#transport = transport;
    this.#retry = opts.retry;
    this.#now = opts.now ?? Date.now;
    this.#onRetry = opts.onRetry;
  }

  async mint(signal?: AbortSignal): Promise<AccessToken> {
    const c = this.#creds;
    const body = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: c.clientId,
      client_secret: c.clientSecret,
      scope: c.scopes.join(","),
    });
    const obtainedAt = this.#now();
    const answer = await requestToken(this.#transport, `${c.authUrl}/ims/token/v3`, body, {
      secrets: [c.clientSecret],
      retry: this.#retry,
      onRetry: this.#onRetry,
      signal,
    });
    const expiresAt = expiryOf(answer.accessToken, obtainedAt, answer.expiresIn * 1000);
    return { accessToken: answer.accessToken, expiresAt, obtainedAt, method: "oauth" };
  }
}
