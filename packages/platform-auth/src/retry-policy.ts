import { setTimeout as sleep } from "node:timers/promises";
import { PlatformAuthError } from "./errors.js";

export interface RetryOptions {
  /** Attempts in all, the first included (default 4). */
  maxAttempts?: number;
  /** First backoff step (default 500 ms); doubles per attempt, with full jitter. */
  baseDelayMs?: number;
  /** Largest single wait (default 30 s). */
  maxDelayMs?: number;
  /** Total time budget for all attempts and waits (default 60 s). */
  maxTotalMs?: number;
  /**
   * Time to wait for an answer's headers, and between body chunks, per attempt (default 30 s).
   * Enforced by undici's timers, which tick about every 0.5 s: treat it as accurate to a second.
   */
  attemptTimeoutMs?: number;
  /** Source of randomness for the jitter, in [0, 1) (tests pass a fixed one). */
  random?: () => number;
}

/** Reported before each wait, so that a CLI can say why it is slow. Carries no secret. */
export interface RetryEvent {
  type: "retry";
  attempt: number;
  delayMs: number;
  reason: string;
  requestId: string | undefined;
}

export const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
// 429 and 503 mean the request was not processed, so even a POST may be sent again; 502/504 and a
// reset connection may come after the server acted, so those are retried for idempotent methods only.
const SAFE_FOR_ANY_METHOD = new Set([429, 503]);

export function checkRetryOptions(o: RetryOptions = {}): Required<RetryOptions> {
  const out = {
    maxAttempts: o.maxAttempts ?? 4,
    baseDelayMs: o.baseDelayMs ?? 500,
    maxDelayMs: o.maxDelayMs ?? 30_000,
    maxTotalMs: o.maxTotalMs ?? 60_000,
    attemptTimeoutMs: o.attemptTimeoutMs ?? 30_000,
    random: o.random ?? Math.random,
  };
  for (const key of ["maxAttempts", "baseDelayMs", "maxDelayMs", "maxTotalMs", "attemptTimeoutMs"] as const) {
    const v = out[key];
    if (!Number.isFinite(v) || v < (key === "maxAttempts" ? 1 : 0)) {
      throw new PlatformAuthError(
        "PA_CONFIG_INVALID",
        `retry option ${key} must be a number ≥ ${key === "maxAttempts" ? 1 : 0}, got ${String(v)}`,
      );
    }
  }
  return out;
}

/** Reads `Retry-After` (RFC 9110 §10.2.3: delay-seconds or an HTTP date) as milliseconds. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Sends with retries: on 429/502/503/504 and network errors, waits an exponential backoff with full
 * jitter (never less than `Retry-After`) and sends again, within the attempt and time budgets.
 * Resolves with the last answer (which may still be an error status); rejects only when no answer
 * came at all.
 */
export async function sendWithRetries(
  send: (signal: AbortSignal | undefined) => Promise<Response>,
  opts: {
    policy: Required<RetryOptions>;
    idempotent: boolean;
    signal?: AbortSignal;
    onRetry?: (e: RetryEvent) => void;
    /** Where the request goes, named in a network error: the URL and the setting it came from. */
    target?: { url: string; setting: string };
  },
): Promise<Response> {
  const { policy } = opts;
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    let res: Response | undefined;
    let failure: unknown;
    try {
      // The per-attempt timeout lives in the dispatcher (headersTimeout/bodyTimeout), not in an
      // AbortSignal per request: a timer per call was measurable on the hot path.
      res = await send(opts.signal);
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      failure = err;
    }
    // Success returns before any header is read: this loop sits on every call's path.
    if (res && !RETRYABLE_STATUSES.has(res.status)) return res;
    const retryable = res
      ? opts.idempotent || SAFE_FOR_ANY_METHOD.has(res.status)
      : (opts.idempotent || isConnectFailure(failure)) && !isBadPort(failure);
    const elapsed = Date.now() - started;
    const backoff = policy.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
    const retryAfter = res ? parseRetryAfter(res.headers.get("retry-after")) : undefined;
    const delay = Math.max(backoff, retryAfter ?? 0);
    const canRetry = retryable && attempt < policy.maxAttempts && elapsed + delay <= policy.maxTotalMs;
    if (!canRetry) {
      if (res) return res;
      throw networkError(failure, attempt, opts.target);
    }
    const reason = res ? `HTTP ${res.status}` : describeFailure(failure);
    opts.onRetry?.({
      type: "retry",
      attempt,
      delayMs: Math.round(delay),
      reason,
      requestId: res?.headers.get("x-request-id") ?? res?.headers.get("x-debug-id") ?? undefined,
    });
    // Drain the discarded answer so that its connection goes back to the pool.
    if (res) await res.arrayBuffer().catch(() => undefined);
    await sleep(delay, undefined, opts.signal ? { signal: opts.signal } : undefined);
  }
}

function isConnectFailure(err: unknown): boolean {
  const code = (err as { cause?: { code?: string } })?.cause?.code;
  return code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN";
}

// undici refuses the Fetch standard's "bad ports" (1, 7, 9, ..., 6000, 10080) before connecting;
// sending again cannot help.
function isBadPort(err: unknown): boolean {
  return (err as { cause?: { message?: string } })?.cause?.message === "bad port";
}

function isTimeout(err: unknown): boolean {
  const code = (err as { cause?: { code?: string } })?.cause?.code;
  return (
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    code === "UND_ERR_CONNECT_TIMEOUT"
  );
}

function describeFailure(err: unknown): string {
  if (isTimeout(err)) return "attempt timed out";
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : "network error");
}

/** Why a request got no answer, in words, with what to check. */
function explainFailure(err: unknown, setting: string | undefined): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const check = setting ? `check ${setting}` : "check the URL";
  if (isTimeout(err))
    return `no answer within the attempt timeout (${cause?.code}); the service is slow or unreachable, ${check}`;
  switch (cause?.code) {
    case "ECONNREFUSED":
      return `connection refused (ECONNREFUSED): nothing listens at that address; ${check}, and that the service or emulator is running`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `the host name could not be resolved (${cause.code}); ${check} for typos, or your DNS and proxy settings`;
    case "ECONNRESET":
      return "the connection was reset before an answer came (ECONNRESET); a proxy or the service dropped it";
    case "CERT_HAS_EXPIRED":
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
      return `the server's TLS certificate was not trusted (${cause.code}); behind an intercepting proxy, add its CA with --ca-file`;
  }
  if (isBadPort(err)) {
    return `the port is one that fetch refuses to use (a "bad port" of the Fetch standard, such as 1, 6000 or 10080); use another port, ${check}`;
  }
  return `${describeFailure(err)}; ${check}`;
}

function networkError(
  err: unknown,
  attempts: number,
  target: { url: string; setting: string } | undefined,
): PlatformAuthError {
  const where = target ? ` ${safeUrl(target.url)}` : "";
  const tries = `after ${attempts} attempt${attempts === 1 ? "" : "s"}`;
  return new PlatformAuthError(
    isTimeout(err) ? "PA_TIMEOUT" : "PA_NETWORK",
    `could not reach${where} ${tries}: ${explainFailure(err, target?.setting)}`,
    { cause: err, reason: isTimeout(err) ? "timeout" : "unreachable" },
  );
}

/** The URL without query or credentials: enough to say where, nothing that could be secret. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "(an invalid URL)";
  }
}
