import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { PlatformAuthError } from "../errors.js";
import { handleAdmin } from "./admin-routes.js";
import { buildClassCatalog } from "./class-catalog.js";
import {
  type ApiContext,
  authorizeApiCall,
  GLOBAL_CLASSES_PATH,
  listGlobalClasses,
} from "./classes-route.js";
import { defaultFaultBody, identityError, sendJson, serviceError } from "./emulator-errors.js";
import {
  type CheckedCredential,
  checkCredentials,
  checkFailure,
  type EmulatorOptions,
  type InjectedFailure,
} from "./emulator-options.js";
import { EmulatorTokenIssuer } from "./emulator-tokens.js";
import { readForm } from "./form-body.js";
import { handleJwtExchange, handleOAuthToken, type IdentityContext } from "./identity-routes.js";
import { RateBudget } from "./rate-budget.js";

export interface EmulatorStats {
  /** Tokens issued (both methods). */
  mints: number;
  tokenRequests: number;
  apiCalls: number;
}

/**
 * A local stand-in for the identity service (`/ims/token/v3`, `/ims/exchange/jwt`) and the schema
 * registry's global-classes call, with switches for expired tokens, injected 401/429/5xx answers,
 * slowness, revocation, and a mint counter. It serves plain http on loopback only.
 *
 * @example
 * const emu = new PlatformEmulator({ credentials: [{ clientId: "id", clientSecret: "secret", orgId: "ORG@AdobeOrg" }] });
 * const url = await emu.start();
 * const client = new PlatformClient({ clientId: "id", clientSecret: "secret", orgId: "ORG@AdobeOrg", authUrl: url, baseUrl: url });
 * emu.failNext({ status: 429, retryAfter: 1 });
 * await emu.close();
 */
export class PlatformEmulator {
  readonly #issuer = new EmulatorTokenIssuer();
  readonly #now: () => number;
  readonly #failures: ReturnType<typeof checkFailure>[] = [];
  readonly #stats: EmulatorStats = { mints: 0, tokenRequests: 0, apiCalls: 0 };
  readonly #identity: IdentityContext;
  readonly #api: ApiContext;
  readonly #credentials: Map<string, CheckedCredential>;
  readonly #budget: RateBudget | undefined;
  #revokeAfter: number | undefined;
  readonly #onRequest: EmulatorOptions["onRequest"];
  #delayMs: number;
  #server: Server | undefined;
  #url = "";
  // Aborted when the emulator stops, so that a slow answer (setDelay) does not hold the process.
  #stopping = new AbortController();
  #cut: (() => void) | undefined;

  constructor(opts: EmulatorOptions) {
    const credentials = checkCredentials(opts.credentials);
    this.#credentials = credentials;
    this.#onRequest = opts.onRequest;
    this.#now = opts.now ?? Date.now;
    this.#budget = opts.rateLimit ? new RateBudget(opts.rateLimit, this.#now) : undefined;
    this.#delayMs = opts.delayMs ?? 0;
    const lifetime = opts.tokenLifetimeSeconds ?? 86_399;
    if (!(Number.isFinite(lifetime) && lifetime > 0)) {
      throw new PlatformAuthError("PA_CONFIG_INVALID", "tokenLifetimeSeconds must be a positive number");
    }
    const classCount = opts.classCount ?? 25;
    if (!Number.isInteger(classCount) || classCount < 0 || classCount > 100_000) {
      throw new PlatformAuthError("PA_CONFIG_INVALID", "classCount must be an integer from 0 to 100000");
    }
    this.#identity = {
      credentials,
      issuer: this.#issuer,
      authUrl: "",
      now: this.#now,
      lifetimeMs: lifetime * 1000,
      expiredTokens: opts.expiredTokens ?? false,
      countMint: (token) => {
        this.#stats.mints++;
        opts.onTokenIssued?.(token);
      },
    };
    this.#api = {
      credentials,
      issuer: this.#issuer,
      catalog: buildClassCatalog(classCount),
      sandboxes: new Set(opts.sandboxes ?? ["prod"]),
      now: this.#now,
      revokedBefore: 0,
    };
  }

  /** Listens on `host` (default 127.0.0.1) and `port` (default 0: any free port); resolves with the URL. */
  async start(opts: { host?: string; port?: number } = {}): Promise<string> {
    const host = opts.host ?? "127.0.0.1";
    if (!["127.0.0.1", "::1", "localhost"].includes(host)) {
      throw new PlatformAuthError(
        "PA_CONFIG_INVALID",
        `the emulator listens on loopback only (127.0.0.1, ::1, localhost), not ${host}`,
      );
    }
    const server = createServer((req, res) => {
      this.#handle(req, res).catch(() => {
        // Never a stack trace or a path to the caller; the connection is simply answered 500.
        if (!res.headersSent) sendJson(res, 500, { title: "Internal Server Error", status: 500 });
        else res.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", (err) => reject(listenError(err, host, opts.port ?? 0)));
      server.listen(opts.port ?? 0, host, () => resolve());
    });
    this.#server = server;
    this.#stopping = new AbortController();
    const addr = server.address() as AddressInfo;
    const shownHost = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
    this.#url = `http://${shownHost}:${addr.port}`;
    this.#identity.authUrl = this.#url;
    return this.#url;
  }

  get url(): string {
    return this.#url;
  }

  stats(): EmulatorStats {
    return { ...this.#stats };
  }

  /** Makes the next matching request(s) fail with the given status and body. */
  failNext(failure: InjectedFailure): void {
    this.#failures.push(checkFailure(failure));
  }

  setDelay(ms: number): void {
    if (!(Number.isFinite(ms) && ms >= 0))
      throw new PlatformAuthError("PA_CONFIG_INVALID", "delay must be ≥ 0 ms");
    this.#delayMs = ms;
  }

  setExpiredTokens(on: boolean): void {
    this.#identity.expiredTokens = on;
  }

  /** Invalidates every token issued so far, as if the platform had revoked them. */
  revokeTokens(): void {
    this.#api.revokedBefore = this.#now() + 1;
  }

  /**
   * Revokes every token issued so far after `calls` more API calls: the next call is answered 401
   * `401013`, as when an admin revokes a token (or deletes a credential) during a run.
   */
  revokeAfter(calls: number): void {
    if (!Number.isInteger(calls) || calls < 0) {
      throw new PlatformAuthError(
        "PA_CONFIG_INVALID",
        `revokeAfter needs an integer ≥ 0, got ${String(calls)}`,
      );
    }
    this.#revokeAfter = calls;
    if (calls === 0) this.#fireRevoke();
  }

  /**
   * Ends a rotation window: the credential's secret at `position` (1-based, in the order given)
   * is refused from now on, as after "delete" in the Developer Console.
   */
  retireSecret(position: number, clientId?: string): void {
    const cred =
      clientId === undefined ? [...this.#credentials.values()][0] : this.#credentials.get(clientId);
    if (!cred) throw new PlatformAuthError("PA_CONFIG_INVALID", `retireSecret: no credential ${clientId}`);
    if (
      !Number.isInteger(position) ||
      position < 1 ||
      position > cred.secrets.length ||
      cred.secrets.length < 2
    ) {
      throw new PlatformAuthError(
        "PA_CONFIG_INVALID",
        `retireSecret: position must be 1 to ${cred.secrets.length}, and one secret must remain`,
      );
    }
    cred.secrets.splice(position - 1, 1);
  }

  #fireRevoke(): void {
    this.#revokeAfter = undefined;
    this.revokeTokens();
  }

  /** Counts a request against the client's rate budget; answers 429 when it is spent. */
  #overBudget(res: ServerResponse, clientId: string | undefined, target: "token" | "api"): boolean {
    if (!this.#budget || !clientId || !this.#credentials.has(clientId)) return false;
    return this.#budget.refuse(res, clientId, target);
  }

  /**
   * Stops taking connections and resolves once the server is closed. Requests in flight may finish
   * within `graceMs` (default 0: they are cut at once); after that their connections are cut too.
   */
  async close(opts: { graceMs?: number } = {}): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const cut = () => {
      this.#stopping.abort();
      server.closeAllConnections();
    };
    this.#cut = cut;
    const grace = opts.graceMs ?? 0;
    if (grace <= 0) cut();
    const timer = grace > 0 ? setTimeout(cut, grace) : undefined;
    await closed;
    clearTimeout(timer);
    this.#cut = undefined;
  }

  /** Cuts the connections of requests still in flight during a graceful {@link close}. */
  cutInFlight(): void {
    this.#cut?.();
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    res.setHeader("x-request-id", requestId);
    const url = new URL(req.url ?? "/", this.#url);
    const onRequest = this.#onRequest;
    if (onRequest) {
      const started = Date.now();
      const method = req.method ?? "?";
      res.once("finish", () =>
        onRequest({
          method,
          path: url.pathname,
          status: res.statusCode,
          ms: Date.now() - started,
          requestId,
        }),
      );
    }
    if (url.pathname.startsWith("/__emulator/")) return handleAdmin(req, res, url, this);
    const isToken = url.pathname === "/ims/token/v3" || url.pathname === "/ims/exchange/jwt";
    if (isToken) {
      this.#stats.tokenRequests++;
      res.setHeader("x-debug-id", res.getHeader("x-request-id") as string);
    } else this.#stats.apiCalls++;
    if (this.#delayMs > 0) await sleep(this.#delayMs, undefined, { signal: this.#stopping.signal });
    // Stopping: answer, then close the connection, so that the server can finish closing.
    if (this.#server === undefined) res.setHeader("connection", "close");
    if (this.#injectFailure(res, isToken ? "token" : "api")) {
      req.resume();
      return;
    }

    if (isToken) {
      if (req.method !== "POST") return identityError(res, 400, "invalid_request", "use POST");
      const fields = await readForm(req);
      if (typeof fields === "string") return identityError(res, 400, "invalid_request", fields);
      if (this.#overBudget(res, fields.get("client_id"), "token")) return;
      if (url.pathname === "/ims/token/v3") return handleOAuthToken(res, fields, this.#identity);
      return handleJwtExchange(res, fields, this.#identity);
    }
    req.resume();
    if (url.pathname !== GLOBAL_CLASSES_PATH) {
      return serviceError(
        res,
        404,
        "XDM-1004-404",
        "Not Found",
        "The emulator serves only the global classes listing.",
      );
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      return serviceError(res, 405, "XDM-1005-405", "Method Not Allowed", "Use GET.");
    }
    const apiKey = req.headers["x-api-key"];
    if (this.#overBudget(res, typeof apiKey === "string" ? apiKey : undefined, "api")) return;
    if (this.#revokeAfter !== undefined && this.#revokeAfter-- <= 0) this.#fireRevoke();
    if (await authorizeApiCall(req, res, this.#api)) listGlobalClasses(req, res, url, this.#api);
  }

  #injectFailure(res: ServerResponse, target: "token" | "api"): boolean {
    const i = this.#failures.findIndex((f) => f.target === target || f.target === "any");
    if (i < 0) return false;
    const f = this.#failures[i];
    if (--f.count <= 0) this.#failures.splice(i, 1);
    const headers: Record<string, string> = {};
    if (f.retryAfter !== undefined) headers["retry-after"] = String(f.retryAfter);
    if (typeof f.body === "string") {
      res.writeHead(f.status, { "content-type": f.contentType ?? "text/plain", ...headers });
      res.end(f.body);
    } else {
      sendJson(res, f.status, f.body ?? defaultFaultBody(f.status, target), headers);
    }
    return true;
  }
}

/** A listen failure in words: which address, why, and how to pick another. */
function listenError(err: NodeJS.ErrnoException, host: string, port: number): PlatformAuthError {
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const how = "pick another with --port N, or --port 0 for any free port";
  const why =
    err.code === "EADDRINUSE"
      ? `${where} is already in use (another emulator or service listens there); ${how}`
      : err.code === "EACCES"
        ? `${where} is not allowed for this user (ports below 1024 need privileges); ${how}`
        : err.code === "EADDRNOTAVAIL"
          ? `${host} is not an address of this machine; use 127.0.0.1`
          : `${where}: ${err.code ?? err.message}`;
  return new PlatformAuthError("PA_LISTEN", `the emulator could not listen: ${why}`, { cause: err });
}
