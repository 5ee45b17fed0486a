import type { AccessToken } from "./access-token.js";
import type { HttpTransport } from "./http-transport.js";
import { TokenExchange, type TokenExchangeOptions } from "./identity-exchange.js";
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
  readonly #exchange: TokenExchange;

  constructor(creds: OAuthCredentials, transport: HttpTransport, opts: TokenExchangeOptions) {
    this.#creds = creds;
    this.#exchange = new TokenExchange(transport, opts);
  }

  async mint(signal?: AbortSignal): Promise<AccessToken> {
    const c = this.#creds;
    const body = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: c.clientId,
      client_secret: c.clientSecret,
      scope: c.scopes.join(","),
    });
    const url = `${c.authUrl}/ims/token/v3`;
    const obtainedAt = this.#exchange.now();
    return this.#exchange.mint(
      { method: "oauth", url, body, secrets: [c.clientSecret], obtainedAt, expiresInUnitMs: 1000 },
      signal,
    );
  }
}
