import type { AccessToken } from "./access-token.js";
import { apiErrorFrom, saysTokenInvalid } from "./api-error.js";
import { parseErrorBody } from "./error-body.js";
import { PlatformAuthError } from "./errors.js";
import { createHttpTransport, type HttpTransport } from "./http-transport.js";
import { loadPrivateKey } from "./jwt-assertion.js";
import { JwtTokenProvider } from "./jwt-token-provider.js";
import { OAuthTokenProvider, type SecretRejectedEvent } from "./oauth-token-provider.js";
import { iteratePages } from "./page-iterator.js";
import { checkBody, resolveTarget } from "./request-target.js";
import { checkRetryOptions, type RetryEvent, type RetryOptions, sendWithRetries } from "./retry-policy.js";
import { SecretMemory } from "./secret-memory.js";
import type { ResolvedSettings, SettingsInput } from "./settings.js";
import { type ResolveSettingsOptions, resolveSettings } from "./settings-resolver.js";
import { TokenCache } from "./token-cache.js";
import { TokenFileStore, tokenCacheKey } from "./token-file-store.js";
import type { TokenProvider } from "./token-provider.js";
import { UsageMeter } from "./usage-meter.js";

/**
 * This hour's use of the credential (every process together) neared or reached a budget the user
 * set: said at 80 % and again at 100 %, once each per client.
 */
export interface BudgetEvent {
  type: "budget";
  what: "calls" | "mints";
  used: number;
  budget: number;
  reached: boolean;
}

/** What the client reports while it works; no event carries a secret or a token. */
export type ClientEvent =
  | RetryEvent
  | SecretRejectedEvent
  | BudgetEvent
  | { type: "mint"; method: string; expiresAt: number }
  | { type: "remint"; reason: string; requestId: string | undefined };

export interface PlatformClientOptions extends SettingsInput {
  /** Config-file profile to read (else `AEP_PROFILE`, the file's `defaultProfile`, or `default`). */
  profile?: string;
  /** Stop using a token this long before expiry (default 10 min, capped at half its lifetime). */
  refreshMarginMs?: number;
  retry?: RetryOptions;
  /** Clock in epoch ms (tests). */
  now?: () => number;
  onEvent?: (event: ClientEvent) => void;
  /** Where settings come from besides the options: environment, `.env` folder, config file. */
  env?: ResolveSettingsOptions["env"];
  cwd?: string;
  configFile?: string;
  /** Token cache file to use when no setting names one (the CLI's default; the library's is none). */
  defaultTokenCache?: string;
  /**
   * A usage file shared by processes: tokens minted and calls sent per credential and hour (the
   * CLI's is beside its token cache; the library counts nothing unless given one).
   */
  usageFile?: string;
  /**
   * Where to remember, between processes, which client secret worked last (fingerprints only),
   * so that after a rotation the live secret is tried first and a dead one reported once. The
   * CLI's is beside its token cache; the library remembers in memory only unless given one.
   */
  secretMemoryFile?: string;
}

export type PlatformBody = string | Uint8Array | URLSearchParams | FormData;

export interface PlatformRequestInit {
  method?: string;
  /** Extra headers; the credential headers are always set by the client. */
  headers?: Record<string, string>;
  /** Replayable bodies only, because a retried request is sent again. */
  body?: PlatformBody;
  /** Sandbox for this call only (default: the configured one; `null`: no sandbox header at all). */
  sandbox?: string | null;
  signal?: AbortSignal;
}

/**
 * A client for one credential set: mints a token on first need, caches it (memory, and a file when
 * `tokenCache` is a path), adds `Authorization`, `x-api-key`, `x-gw-ims-org-id` and
 * `x-sandbox-name` to every call, retries throttled and failed calls, and re-mints once when the
 * gateway says the token is no longer valid.
 *
 * @example
 * const client = new PlatformClient({ sandbox: "prod" }); // the rest from env, profile or .env
 * const classes = await client.all("/data/foundation/schemaregistry/global/classes", {
 *   headers: { accept: "application/vnd.adobe.xed-id+json" },
 * });
 * await client.close();
 */
export class PlatformClient {
  readonly #settings: ResolvedSettings;
  readonly #transport: HttpTransport;
  readonly #cache: TokenCache;
  readonly #retry: Required<RetryOptions>;
  readonly #onEvent: ((e: ClientEvent) => void) | undefined;
  readonly #baseOrigin: string;
  readonly #meter: UsageMeter | undefined;

  constructor(options: PlatformClientOptions = {}) {
    const {
      profile,
      refreshMarginMs,
      retry,
      now,
      onEvent,
      env,
      cwd,
      configFile,
      defaultTokenCache,
      usageFile,
      secretMemoryFile,
      ...input
    } = options;
    const settings = resolveSettings({ options: { ...input, profile }, env, cwd, configFile });
    this.#settings = settings;
    if (refreshMarginMs !== undefined && !(Number.isFinite(refreshMarginMs) && refreshMarginMs >= 0)) {
      throw new PlatformAuthError(
        "PA_CONFIG_INVALID",
        "refreshMarginMs must be a number of milliseconds ≥ 0",
      );
    }
    this.#retry = checkRetryOptions(retry);
    this.#onEvent = onEvent;
    this.#transport = createHttpTransport({
      env,
      caFile: settings.caFile,
      attemptTimeoutMs: this.#retry.attemptTimeoutMs,
    });
    this.#baseOrigin = new URL(settings.baseUrl).origin;
    this.#meter =
      usageFile === undefined
        ? undefined
        : new UsageMeter(
            usageFile,
            tokenCacheKey({ ...settings, method: settings.authMethod }),
            settings,
            now,
            (thisHour) => this.#checkBudget(thisHour),
          );
    const provider = this.#createProvider(now, secretMemoryFile);
    const cacheSetting = settings.tokenCache ?? defaultTokenCache;
    const file =
      cacheSetting !== undefined && cacheSetting !== "off"
        ? {
            store: new TokenFileStore(cacheSetting),
            key: tokenCacheKey({ ...settings, method: settings.authMethod }),
          }
        : undefined;
    this.#cache = new TokenCache(provider, {
      refreshMarginMs,
      now,
      file,
      onMint: (m) => {
        this.#meter?.count("mints");
        this.#onEvent?.({ type: "mint", ...m });
      },
    });
  }

  /** The resolved settings without the secret and the private key (safe to print). */
  describe(): Omit<ResolvedSettings, "clientSecret" | "clientSecrets" | "privateKey"> & {
    clientSecretCount: number;
  } {
    const { clientSecret: _s, clientSecrets, privateKey: _k, ...safe } = this.#settings;
    return { ...safe, clientSecretCount: clientSecrets.length };
  }

  /** A valid access token with its expiry, minting only when the cache has none. */
  accessToken(): Promise<AccessToken> {
    return this.#cache.get();
  }

  /** The full header set of a Platform call, for tools that send requests themselves. */
  async headers(sandbox = this.#settings.sandbox): Promise<Record<string, string>> {
    const token = await this.#cache.get();
    return this.#credentialHeaders(token.accessToken, sandbox);
  }

  /**
   * Sends a request to `{base_url}{path}` (or an absolute URL on the base URL's origin) with the
   * credential headers, retries and one re-mint on an invalid token. Like `fetch`, it resolves with
   * the answer whatever its status; use {@link PlatformClient.json} to get errors thrown.
   */
  async fetch(target: string, init: PlatformRequestInit = {}): Promise<Response> {
    const url = resolveTarget(target, this.#settings.baseUrl, this.#baseOrigin);
    checkBody(init.body);
    let token = this.#cache.fresh() ?? (await this.#cache.get());
    let res = await this.#send(url, init, token.accessToken);
    if (res.status === 401) {
      const parsed = parseErrorBody(401, res.headers, await res.clone().text());
      if (saysTokenInvalid(parsed)) {
        this.#onEvent?.({ type: "remint", reason: parsed.serviceCode ?? "401", requestId: parsed.requestId });
        await res.arrayBuffer().catch(() => undefined);
        this.#cache.invalidate(token.accessToken);
        token = await this.#cache.get();
        res = await this.#send(url, init, token.accessToken);
      }
    }
    return res;
  }

  /** Sends a request and returns its JSON body; any error status becomes a `PlatformAuthError`. */
  async json<T = unknown>(target: string, init: PlatformRequestInit = {}): Promise<T> {
    const res = await this.fetch(target, init);
    const text = await res.text();
    if (!res.ok) throw await this.errorFrom(res, text, init.method ?? "GET", target);
    if (text.trim() === "") return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new PlatformAuthError(
        "PA_BAD_RESPONSE",
        `${target} answered HTTP ${res.status} with a body that is not JSON`,
        {
          status: res.status,
          requestId: res.headers.get("x-request-id") ?? undefined,
        },
      );
    }
  }

  /** Yields each page of a paged listing, following `_page.next` (as `start=`). */
  pages<P = unknown>(
    target: string,
    init: PlatformRequestInit & { maxPages?: number } = {},
  ): AsyncGenerator<P> {
    return iteratePages<P>((t) => this.json(t, init), target, init.maxPages);
  }

  /** Every `results` record of every page, in order. */
  async all<R = unknown>(
    target: string,
    init: PlatformRequestInit & { maxPages?: number } = {},
  ): Promise<R[]> {
    const out: R[] = [];
    for await (const page of this.pages<{ results?: R[] }>(target, init)) out.push(...(page.results ?? []));
    return out;
  }

  /** Turns an error answer into the one error type, scrubbed of secrets. */
  async errorFrom(res: Response, text: string, method: string, target: string): Promise<PlatformAuthError> {
    return apiErrorFrom(res, text, method, target, [
      ...this.#settings.clientSecrets,
      this.#cache.fresh()?.accessToken,
    ]);
  }

  /** Writes pending usage counts and closes the connection pool. */
  async close(): Promise<void> {
    // Counts are worth keeping but not worth failing a finished piece of work for.
    await this.#meter?.flush().catch(() => undefined);
    await this.#transport.close();
  }

  readonly #budgetSaid = new Set<string>();

  /** Says (once per level) that this hour's use nears or reached a budget the user set. */
  #checkBudget(thisHour: { calls: number; mints: number }): void {
    const budgets = { calls: this.#settings.budget.callsPerHour, mints: this.#settings.budget.mintsPerHour };
    for (const what of ["calls", "mints"] as const) {
      const budget = budgets[what];
      const used = thisHour[what];
      // Warn from 80 %, leaving time to slow down before the platform starts answering 429.
      if (budget === undefined || used < budget * 0.8) continue;
      const reached = used >= budget;
      const level = `${what}:${reached}`;
      if (this.#budgetSaid.has(level)) continue;
      this.#budgetSaid.add(level);
      this.#onEvent?.({ type: "budget", what, used, budget, reached });
    }
  }

  #createProvider(now: (() => number) | undefined, memoryFile: string | undefined): TokenProvider {
    const s = this.#settings;
    const opts = { retry: this.#retry, now, onRetry: (e: RetryEvent) => this.#onEvent?.(e) };
    if (s.authMethod === "jwt") {
      const privateKey = loadPrivateKey({ file: s.privateKeyFile, pem: s.privateKey });
      return new JwtTokenProvider(
        { ...s, technicalAccountId: s.technicalAccountId as string, privateKey },
        this.#transport,
        opts,
      );
    }
    const memory = memoryFile === undefined ? undefined : new SecretMemory(memoryFile);
    const key = tokenCacheKey({ ...s, method: s.authMethod });
    return new OAuthTokenProvider(s, this.#transport, {
      ...opts,
      onSecretRejected: (e) => this.#onEvent?.(e),
      remembered: memory?.load(key),
      onSecretState: (state) => memory?.save(key, state),
    });
  }

  #credentialHeaders(token: string, sandbox: string | undefined): Record<string, string> {
    const h: Record<string, string> = {
      authorization: `Bearer ${token}`,
      "x-api-key": this.#settings.clientId,
      "x-gw-ims-org-id": this.#settings.orgId,
    };
    if (sandbox !== undefined) h["x-sandbox-name"] = sandbox;
    return h;
  }

  #send(url: string, init: PlatformRequestInit, token: string): Promise<Response> {
    const method = (init.method ?? "GET").toUpperCase();
    const headers: Record<string, string> = { accept: "application/json" };
    if (init.headers) for (const [k, v] of Object.entries(init.headers)) headers[k.toLowerCase()] = v;
    const sandbox = init.sandbox === null ? undefined : (init.sandbox ?? this.#settings.sandbox);
    Object.assign(headers, this.#credentialHeaders(token, sandbox));
    return sendWithRetries(
      (signal) => {
        this.#meter?.count("calls");
        return this.#transport.fetch(url, { method, headers, body: init.body, signal });
      },
      {
        policy: this.#retry,
        idempotent: method !== "POST" && method !== "PATCH",
        signal: init.signal,
        onRetry: (e) => this.#onEvent?.(e),
        target: { url, setting: "the base URL (--base-url, AEP_BASE_URL)" },
      },
    );
  }
}
