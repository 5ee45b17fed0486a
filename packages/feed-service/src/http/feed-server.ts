/**
 * The HTTP server of the feed service (node:http, keep-alive, HTTP/1.0 and 1.1): the SOAP endpoint
 * and its alias, their WSDL, `/click/<postId>`, `/healthz`, and 404 for the rest. A failing handler
 * answers 500 with a generic message; it never crashes the process and never sends a stack trace,
 * SQL text or server path.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { requestLimits } from "@feed-toolkit/soap";
import type { OperationRunner } from "../operations/operation-runner.js";
import type { Store } from "../store/store.js";
import { normalisePublicUrl, requestBaseUrl } from "./base-url.js";
import { createClickRoute } from "./click-route.js";
import { createFeedSoapEndpoint } from "./feed-soap-endpoint.js";
import { handleHealth } from "./health-route.js";
import { readRequestBody } from "./request-body.js";
import { ResponseCache } from "./response-cache.js";
import { sendText } from "./responses.js";

/** The SOAP endpoint and its ColdFusion-era alias (spec §1). */
export const soapPaths: readonly string[] = ["/webservices/FeedAggregator", "/webservices/mxna2.cfc"];

export interface FeedServerOptions {
  readonly store: Store;
  readonly runner: OperationRunner;
  /** Public base URL for `soap:address` and tracking links; else each request's Host is used. */
  readonly publicUrl?: string;
  readonly now?: () => number;
  /** The whole request must arrive within this time (spec §3: 30 s). */
  readonly bodyTimeoutMs?: number;
  readonly maxBodyBytes?: number;
  /**
   * Keep answers of pure operations while the data is unchanged (default true); see
   * response-cache.ts. Off, every call decodes, queries and encodes.
   */
  readonly responseCache?: boolean;
  /** Where unexpected handler errors are reported (server side only). */
  readonly logError?: (message: string) => void;
}

export interface FeedServer {
  readonly server: Server;
  /** Starts listening; resolves with the bound address (port 0 picks a free port). */
  listen(port: number, host: string): Promise<AddressInfo>;
  close(): Promise<void>;
}

/**
 * @example
 * const { listen } = createFeedServer({ store, runner: createOperationRunner({ store, parseSearch }) });
 * const address = await listen(8080, "0.0.0.0");
 */
export function createFeedServer(options: FeedServerOptions): FeedServer {
  const publicUrl = options.publicUrl ? normalisePublicUrl(options.publicUrl) : undefined;
  const soap = createFeedSoapEndpoint(options.runner);
  const clicks = createClickRoute(options.store, options.now);
  const maxBodyBytes = options.maxBodyBytes ?? requestLimits.maxBodyBytes;
  const logError =
    options.logError ?? ((message: string) => process.stderr.write(`feed-service: ${message}\n`));
  const cache = options.responseCache === false ? undefined : new ResponseCache();
  const soapPathByLowerCase = new Map(soapPaths.map((p) => [p.toLowerCase(), p]));

  async function handleSoapPost(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const read = await readRequestBody(req, maxBodyBytes);
    if (read.kind === "aborted") return;
    const answer = read.kind === "too-large" ? soap.tooLarge() : undefined;
    if (answer) {
      // The rest of the body is not read: drain it and close, so the client sees the 413.
      req.resume();
      res.writeHead(answer.status, {
        "Content-Type": answer.contentType,
        "Content-Length": Buffer.byteLength(answer.body),
        Connection: "close",
      });
      res.end(answer.body);
      return;
    }
    if (read.kind !== "ok") return;
    const contentType = req.headers["content-type"];
    const baseUrl = requestBaseUrl(req, publicUrl);
    const key = cache?.key(read.body, contentType, baseUrl);
    // The version is read before the call, so a write during the call leaves the entry stale.
    const version = key === undefined ? undefined : await options.store.dataVersion().catch(() => undefined);
    const hit = key !== undefined && version !== undefined ? cache?.get(key, version) : undefined;
    if (hit) return sendBytes(res, 200, hit.contentType, hit.body);
    const { response, pure } = await soap.handle(read.body, contentType, baseUrl);
    const body = Buffer.from(response.body, "utf8");
    if (pure && response.status === 200 && key !== undefined && version !== undefined) {
      cache?.set(key, { version, contentType: response.contentType, body });
    }
    sendBytes(res, response.status, response.contentType, body);
  }

  function sendBytes(res: ServerResponse, status: number, contentType: string, body: Buffer): void {
    res.writeHead(status, { "Content-Type": contentType, "Content-Length": body.length });
    res.end(body);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    const query = q === -1 ? "" : url.slice(q + 1);
    const method = req.method === "HEAD" ? "GET" : req.method;
    if (soapPathByLowerCase.has(path.toLowerCase())) {
      if (method === "POST") return handleSoapPost(req, res);
      if (method === "GET") {
        if (/^wsdl(?:[=&]|$)/i.test(query)) {
          const doc = soap.wsdl(requestBaseUrl(req, publicUrl) + path);
          return sendText(res, 200, doc, { "Content-Type": "text/xml; charset=utf-8" });
        }
        return sendText(res, 200, `This is the FeedAggregator SOAP endpoint; its WSDL is at ${path}?wsdl\n`);
      }
      return sendText(res, 405, "Use POST for SOAP calls and GET ?wsdl for the WSDL.\n", {
        Allow: "GET, POST",
      });
    }
    if (method === "GET" && path.startsWith("/click/")) return clicks.handle(req, res, path.slice(7));
    if (method === "GET" && path === "/healthz") return handleHealth(options.store, res);
    sendText(res, 404, "Not found.\n");
  }

  const bodyTimeoutMs = options.bodyTimeoutMs ?? requestLimits.bodyTimeoutMs;
  const server = createServer(
    {
      requestTimeout: bodyTimeoutMs,
      headersTimeout: Math.min(bodyTimeoutMs, 20_000),
      // Node checks the timeouts above on this interval; the default (30 s) would double them.
      connectionsCheckingInterval: Math.min(1000, bodyTimeoutMs),
      keepAliveTimeout: 5000,
    },
    (req, res) => {
      route(req, res).catch((error: unknown) => {
        logError(
          `${req.method} ${req.url?.slice(0, 200)} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
        if (!res.headersSent) sendText(res, 500, "The server failed to answer this request.\n");
        else res.destroy();
      });
    },
  );

  return {
    server,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
