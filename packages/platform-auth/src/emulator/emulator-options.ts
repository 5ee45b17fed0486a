import { createPublicKey, type KeyObject } from "node:crypto";
import { PlatformAuthError } from "../errors.js";
import { DEFAULT_METASCOPES, DEFAULT_SCOPES } from "../settings.js";

/** One integration the emulator knows, as the Developer Console would have it. */
export interface EmulatorCredential {
  clientId: string;
  clientSecret: string;
  /**
   * More secrets accepted at the same time: a rotation window, as the Developer Console allows two
   * secrets while the old one is being replaced. `retireSecret` ends the window.
   */
  clientSecrets?: string[];
  orgId: string;
  /** Scopes the credential may ask for (default: Platform's list). */
  scopes?: string[];
  /** For the JWT method: the technical account and the public key (or its private key, PEM). */
  technicalAccountId?: string;
  publicKey?: string | KeyObject;
  metascopes?: string[];
}

/** One queued failure: the next `count` matching requests get `status`. */
export interface InjectedFailure {
  status: number;
  count?: number;
  /** Which requests: token endpoints, API calls, or both (default `api`). */
  target?: "token" | "api" | "any";
  /** `Retry-After` value, in seconds. */
  retryAfter?: number;
  /** JSON body (default: the shape the platform uses for that status), or text when a string. */
  body?: unknown;
  contentType?: string;
}

export interface EmulatorOptions {
  credentials: EmulatorCredential[];
  /** Lifetime of issued tokens (default 86 399 s, like the platform's 24 h). */
  tokenLifetimeSeconds?: number;
  /** How many global classes to list (default 25). */
  classCount?: number;
  /** Sandboxes that exist (default `prod`; an absent header means `prod`). */
  sandboxes?: string[];
  /** Clock in epoch ms (tests). */
  now?: () => number;
  /** Delay every answer by this much. */
  delayMs?: number;
  /** Issue tokens that are already expired. */
  expiredTokens?: boolean;
  /** Told every token issued (tests use it to grep output for tokens). */
  onTokenIssued?: (token: string) => void;
  /**
   * Told each answered request: method, path (no query), status, time taken and request id.
   * Nothing from headers or bodies, so no secret or token can reach a request log.
   */
  onRequest?: (info: { method: string; path: string; status: number; ms: number; requestId: string }) => void;
  /**
   * A rate budget per credential, as the platform throttles each integration: more than `requests`
   * token requests and API calls of one client id within a window of `perSeconds` are answered 429
   * with `Retry-After` (the seconds left in the window).
   */
  rateLimit?: { requests: number; perSeconds: number };
}

export interface CheckedCredential {
  clientId: string;
  /** Secrets accepted now, in the order given. */
  secrets: string[];
  orgId: string;
  scopes: Set<string>;
  technicalAccountId: string | undefined;
  publicKey: KeyObject | undefined;
  metascopes: string[];
}

export function checkCredentials(list: EmulatorCredential[]): Map<string, CheckedCredential> {
  if (!Array.isArray(list) || list.length === 0) {
    throw new PlatformAuthError(
      "PA_CONFIG_INVALID",
      "the emulator needs at least one credential (clientId, clientSecret, orgId)",
    );
  }
  const out = new Map<string, CheckedCredential>();
  for (const c of list) {
    const missing = (["clientId", "clientSecret", "orgId"] as const).filter((k) => !c[k]);
    if (missing.length > 0) {
      throw new PlatformAuthError(
        "PA_CONFIG_MISSING",
        `emulator credential is missing: ${missing.join(", ")}`,
      );
    }
    let publicKey: KeyObject | undefined;
    if (c.publicKey !== undefined) {
      try {
        // createPublicKey also derives the public half from a private key.
        publicKey = createPublicKey(c.publicKey);
      } catch {
        throw new PlatformAuthError(
          "PA_KEY_INVALID",
          `emulator credential ${c.clientId}: the public key is not a PEM key`,
        );
      }
    }
    out.set(c.clientId, {
      clientId: c.clientId,
      secrets: [...new Set([c.clientSecret, ...(c.clientSecrets ?? [])])],
      orgId: c.orgId,
      scopes: new Set(c.scopes ?? DEFAULT_SCOPES),
      technicalAccountId: c.technicalAccountId,
      publicKey,
      metascopes: c.metascopes ?? DEFAULT_METASCOPES,
    });
  }
  return out;
}

export function checkFailure(
  f: InjectedFailure,
): Required<Omit<InjectedFailure, "body" | "contentType" | "retryAfter">> & InjectedFailure {
  if (!Number.isInteger(f.status) || f.status < 400 || f.status > 599) {
    throw new PlatformAuthError(
      "PA_CONFIG_INVALID",
      `injected failure status must be 400-599, got ${String(f.status)}`,
    );
  }
  const count = f.count ?? 1;
  if (!Number.isInteger(count) || count < 1) {
    throw new PlatformAuthError(
      "PA_CONFIG_INVALID",
      `injected failure count must be an integer ≥ 1, got ${String(count)}`,
    );
  }
  const target = f.target ?? "api";
  if (!["token", "api", "any"].includes(target)) {
    throw new PlatformAuthError("PA_CONFIG_INVALID", `injected failure target must be token, api or any`);
  }
  return { ...f, count, target };
}
