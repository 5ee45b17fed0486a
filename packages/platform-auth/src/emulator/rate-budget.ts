import type { ServerResponse } from "node:http";
import { PlatformAuthError } from "../errors.js";
import { gatewayError, identityError } from "./emulator-errors.js";

/**
 * The platform's throttling as the emulator plays it: a fixed window per client id, shared by its
 * token requests and its API calls (the platform counts what every app of one credential does).
 * Over the budget, the answer is 429 with `Retry-After` = the seconds left in the window, in the
 * identity service's shape for token requests and the gateway's for calls.
 */
export class RateBudget {
  readonly #requests: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(limit: { requests: number; perSeconds: number }, now: () => number) {
    if (
      !Number.isInteger(limit.requests) ||
      limit.requests < 1 ||
      !(Number.isFinite(limit.perSeconds) && limit.perSeconds > 0)
    ) {
      throw new PlatformAuthError(
        "PA_CONFIG_INVALID",
        `rateLimit must be { requests: integer ≥ 1, perSeconds: number > 0 }, got ${JSON.stringify(limit)}`,
      );
    }
    this.#requests = limit.requests;
    this.#windowMs = limit.perSeconds * 1000;
    this.#now = now;
  }

  /** Counts one request of `clientId`; when the budget is spent, answers 429 and returns true. */
  refuse(res: ServerResponse, clientId: string, target: "token" | "api"): boolean {
    const now = this.#now();
    let w = this.#windows.get(clientId);
    if (!w || now - w.start >= this.#windowMs) {
      w = { start: now, count: 0 };
      this.#windows.set(clientId, w);
    }
    if (++w.count <= this.#requests) return false;
    res.setHeader("retry-after", String(Math.max(1, Math.ceil((w.start + this.#windowMs - now) / 1000))));
    if (target === "token") identityError(res, 429, "too_many_requests", "Too many requests");
    else gatewayError(res, 429, "429050", "Too many requests");
    return true;
  }
}
