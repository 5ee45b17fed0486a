import type { AccessToken } from "./access-token.js";
import { PlatformAuthError } from "./errors.js";
import type { HttpTransport } from "./http-transport.js";
import { TokenExchange, type TokenExchangeOptions } from "./identity-exchange.js";
import { fingerprintOf, type SecretState } from "./secret-memory.js";
import type { TokenProvider } from "./token-provider.js";

export interface OAuthCredentials {
  authUrl: string;
  clientId: string;
  /** The secret, when there is one; `clientSecrets` lists several. */
  clientSecret?: string;
  /**
   * Several secrets of the credential, tried in order on `invalid_client` (during a rotation the
   * Developer Console accepts two). Wins over `clientSecret` when given.
   */
  clientSecrets?: readonly string[];
  scopes: readonly string[];
}

/** Told when a secret is refused and another one works; carries positions, never a secret. */
export interface SecretRejectedEvent {
  type: "secret-rejected";
  /** 1-based position of the refused secret in the settings. */
  rejected: number;
  /** 1-based position of the secret that worked. */
  accepted: number;
  of: number;
}

/**
 * OAuth server-to-server: `POST {auth_url}/ims/token/v3`, urlencoded, `grant_type=client_credentials`.
 * There is no refresh token; a new token is minted the same way. `expires_in` is in **seconds**.
 *
 * With several client secrets, a mint tries the one that worked last, then the others in order,
 * moving on only when the identity service answers `invalid_client` (any other refusal would be the
 * same for every secret). A secret refused while another worked is reported once.
 *
 * @example
 * const provider = new OAuthTokenProvider({ authUrl, clientId, clientSecrets: [newSecret, oldSecret], scopes: ["openid"] }, transport, { retry });
 * const { accessToken, expiresAt } = await provider.mint();
 */
export class OAuthTokenProvider implements TokenProvider {
  readonly method = "oauth" as const;
  // Private fields: a logged or inspected provider shows no secret.
  readonly #creds: OAuthCredentials;
  readonly #secrets: readonly string[];
  readonly #exchange: TokenExchange;
  readonly #onSecretRejected: ((e: SecretRejectedEvent) => void) | undefined;
  readonly #onSecretState: ((state: SecretState) => void) | undefined;
  readonly #fingerprints: string[];
  readonly #reported = new Set<number>();
  #working = 0;

  constructor(
    creds: OAuthCredentials,
    transport: HttpTransport,
    opts: TokenExchangeOptions & {
      onSecretRejected?: (e: SecretRejectedEvent) => void;
      /** What an earlier process learnt: the secret that worked and those already reported. */
      remembered?: SecretState;
      /** Told when that changes, to remember it for the next process. */
      onSecretState?: (state: SecretState) => void;
    },
  ) {
    const secrets = creds.clientSecrets?.length ? creds.clientSecrets : [creds.clientSecret ?? ""];
    if (secrets.some((s) => s === "")) {
      throw new PlatformAuthError("PA_CONFIG_MISSING", "the OAuth method needs a client secret");
    }
    this.#creds = creds;
    this.#secrets = [...secrets];
    this.#exchange = new TokenExchange(transport, opts);
    this.#onSecretRejected = opts.onSecretRejected;
    this.#onSecretState = opts.onSecretState;
    this.#fingerprints = this.#secrets.map(fingerprintOf);
    const known = this.#fingerprints.indexOf(opts.remembered?.working ?? "");
    if (known >= 0) this.#working = known;
    this.#fingerprints.forEach((f, i) => {
      if (opts.remembered?.refused.includes(f)) this.#reported.add(i);
    });
  }

  /** 1-based position of the secret that worked last (the first one until a mint says otherwise). */
  get workingSecret(): number {
    return this.#working + 1;
  }

  async mint(signal?: AbortSignal): Promise<AccessToken> {
    const order = [this.#working, ...this.#secrets.keys()].filter((v, i, a) => a.indexOf(v) === i);
    const refused: number[] = [];
    for (const index of order) {
      try {
        const token = await this.#mintWith(this.#secrets[index], signal);
        const changed = index !== this.#working || refused.some((r) => !this.#reported.has(r));
        this.#working = index;
        for (const r of refused) this.#report(r, index);
        if (changed) {
          this.#onSecretState?.({
            working: this.#fingerprints[index],
            refused: [...this.#reported].map((i) => this.#fingerprints[i]),
          });
        }
        return token;
      } catch (err) {
        const tryNext =
          err instanceof PlatformAuthError &&
          err.serviceCode === "invalid_client" &&
          refused.length + 1 < order.length;
        if (!tryNext) throw err;
        refused.push(index);
      }
    }
    // Unreachable: the loop returns or throws on its last secret.
    throw new PlatformAuthError("PA_AUTH_FAILED", "no client secret was accepted");
  }

  #mintWith(secret: string, signal: AbortSignal | undefined): Promise<AccessToken> {
    const c = this.#creds;
    const body = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: c.clientId,
      client_secret: secret,
      scope: c.scopes.join(","),
    });
    const url = `${c.authUrl}/ims/token/v3`;
    const obtainedAt = this.#exchange.now();
    return this.#exchange.mint(
      { method: "oauth", url, body, secrets: [...this.#secrets], obtainedAt, expiresInUnitMs: 1000 },
      signal,
    );
  }

  #report(rejected: number, accepted: number): void {
    if (this.#reported.has(rejected)) return;
    this.#reported.add(rejected);
    this.#onSecretRejected?.({
      type: "secret-rejected",
      rejected: rejected + 1,
      accepted: accepted + 1,
      of: this.#secrets.length,
    });
  }
}
