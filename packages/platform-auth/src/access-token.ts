import type { AuthMethod } from "./settings.js";

/** A minted access token and when it stops being valid. */
export interface AccessToken {
  accessToken: string;
  /** Epoch milliseconds at which the identity service says the token expires. */
  expiresAt: number;
  /** Epoch milliseconds at which it was obtained (start of the mint request). */
  obtainedAt: number;
  method: AuthMethod;
}

/** The claims an Adobe access token carries in its (unverified) payload. */
export interface AccessTokenClaims {
  type?: string;
  client_id?: string;
  scope?: string;
  /** Milliseconds since the epoch, as a string. */
  created_at?: string;
  /** Milliseconds, as a string. */
  expires_in?: string;
  [claim: string]: unknown;
}

/**
 * Decodes the payload of a JWT-shaped access token without verifying it (only the issuer can);
 * `undefined` when the token is opaque.
 */
export function decodeTokenClaims(token: string): AccessTokenClaims | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
    return typeof payload === "object" && payload !== null ? (payload as AccessTokenClaims) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The expiry of a fresh token. `lifetimeMs` comes from the answer's `expires_in`, already converted
 * to milliseconds by the provider (seconds for OAuth, milliseconds for the JWT exchange). When the
 * token carries `created_at` + `expires_in` claims, the earlier of the two expiries wins: a token is
 * never kept past what its issuer wrote into it.
 */
export function expiryOf(token: string, obtainedAt: number, lifetimeMs: number): number {
  const fromAnswer = obtainedAt + lifetimeMs;
  const claims = decodeTokenClaims(token);
  const created = Number(claims?.created_at);
  const life = Number(claims?.expires_in);
  if (Number.isFinite(created) && Number.isFinite(life) && created > 0 && life > 0) {
    return Math.min(fromAnswer, created + life);
  }
  return fromAnswer;
}

/**
 * When to stop using a token: `margin` before expiry, but never more than half its lifetime, so that
 * a short-lived token is still used rather than re-minted on every call.
 */
export function refreshTimeOf(token: AccessToken, marginMs: number): number {
  const lifetime = Math.max(0, token.expiresAt - token.obtainedAt);
  return token.expiresAt - Math.min(marginMs, lifetime / 2);
}
