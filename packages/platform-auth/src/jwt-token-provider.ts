import type { KeyObject } from "node:crypto";
import type { AccessToken } from "./access-token.js";
import type { HttpTransport } from "./http-transport.js";
import { TokenExchange, type TokenExchangeOptions } from "./identity-exchange.js";
import { buildJwtAssertion } from "./jwt-assertion.js";
import type { TokenProvider } from "./token-provider.js";

export interface JwtCredentials {
  authUrl: string;
  clientId: string;
  clientSecret: string;
  orgId: string;
  technicalAccountId: string;
  metascopes: readonly string[];
  privateKey: KeyObject;
}

/**
 * The deprecated service-account (JWT) method: `POST {auth_url}/ims/exchange/jwt` as
 * multipart/form-data with `client_id`, `client_secret` and `jwt_token`. Its `expires_in` is in
 * **milliseconds**, unlike OAuth's seconds. Adobe ended JWT credentials in 2025; this remains for
 * older integrations and for the emulator.
 *
 * @example
 * const provider = new JwtTokenProvider({ ...creds, privateKey: loadPrivateKey({ file }) }, transport, { retry });
 */
export class JwtTokenProvider implements TokenProvider {
  readonly method = "jwt" as const;
  readonly #creds: JwtCredentials;
  readonly #exchange: TokenExchange;

  constructor(creds: JwtCredentials, transport: HttpTransport, opts: TokenExchangeOptions) {
    this.#creds = creds;
    this.#exchange = new TokenExchange(transport, opts);
  }

  async mint(signal?: AbortSignal): Promise<AccessToken> {
    const c = this.#creds;
    const obtainedAt = this.#exchange.now();
    const jwt = await buildJwtAssertion({ ...c, nowSeconds: Math.floor(obtainedAt / 1000) });
    const body = new FormData();
    body.set("client_id", c.clientId);
    body.set("client_secret", c.clientSecret);
    body.set("jwt_token", jwt);
    const url = `${c.authUrl}/ims/exchange/jwt`;
    return this.#exchange.mint(
      { method: "jwt", url, body, secrets: [c.clientSecret, jwt], obtainedAt, expiresInUnitMs: 1 },
      signal,
    );
  }
}
