import { randomBytes, randomUUID } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";

export interface IssuedClaims {
  type: string;
  client_id: string;
  scope: string;
  org: string;
  created_at: string;
  expires_in: string;
}

/**
 * Signs and checks the emulator's access tokens. They are shaped like the platform's: a JWT whose
 * payload holds `type`, `client_id`, `scope`, `created_at` and `expires_in` (both milliseconds, as
 * strings). They are signed HS256 with a key made at start-up, so only this emulator accepts them.
 */
export class EmulatorTokenIssuer {
  readonly #key = randomBytes(32);
  // Verified tokens, so that the hot path does not re-run HMAC on every call (bounded).
  readonly #verified = new Map<string, IssuedClaims>();

  async issue(p: {
    clientId: string;
    scope: string;
    orgId: string;
    createdAt: number;
    lifetimeMs: number;
  }): Promise<string> {
    const claims: IssuedClaims & { id: string; as: string } = {
      id: randomUUID(),
      type: "access_token",
      client_id: p.clientId,
      scope: p.scope,
      org: p.orgId,
      as: "ims-na1",
      created_at: String(p.createdAt),
      expires_in: String(p.lifetimeMs),
    };
    return new SignJWT({ ...claims } as Record<string, unknown>)
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .sign(this.#key);
  }

  /** The token's claims if this emulator issued it; `undefined` for anything else. */
  async verify(token: string): Promise<IssuedClaims | undefined> {
    const known = this.#verified.get(token);
    if (known) return known;
    try {
      const { payload } = await jwtVerify(token, this.#key, { algorithms: ["HS256"] });
      const claims = payload as unknown as IssuedClaims;
      if (this.#verified.size >= 10_000) this.#verified.clear();
      this.#verified.set(token, claims);
      return claims;
    } catch {
      return undefined;
    }
  }
}
