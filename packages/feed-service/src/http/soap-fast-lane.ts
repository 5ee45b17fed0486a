/**
 * The one path that stays on bare node:http: a SOAP call whose answer is in the answer cache.
 * Measured on this machine, Fastify's request lifecycle added about a third to the CPU of such a
 * call (it is otherwise little more than a cache lookup and one write), more than the 10% the
 * benchmark allows against the bare limit; so the server reads every SOAP POST body here first,
 * answers hits at once, and hands everything else, with the body already read, to the Fastify
 * route in routes.ts (misses, faults, 413s), which does all the rest.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { ServiceMetrics } from "../metrics/service-metrics.js";
import type { Store } from "../store/store.js";
import { requestBaseUrl } from "./base-url.js";
import { type BodyResult, readRequestBody } from "./request-body.js";
import type { ResponseCache } from "./response-cache.js";
import { endWithBody } from "./sliced-body.js";
import { canonicalSoapUrl, soapPaths } from "./soap-route.js";

/** What the fast lane learnt about a request it handed on: its body, and its cache key and version. */
export interface PreReadSoapBody {
  readonly result: BodyResult;
  readonly key?: string;
  readonly version?: string;
}

const preRead = Symbol("feed-service.soapBody");
type WithPreRead = IncomingMessage & { [preRead]?: PreReadSoapBody };

/** The body the fast lane read for this request, if it did. */
export function preReadSoapBody(req: IncomingMessage): PreReadSoapBody | undefined {
  return (req as WithPreRead)[preRead];
}

export interface SoapFastLaneOptions {
  readonly store: Store;
  readonly cache: ResponseCache;
  readonly publicUrl: string | undefined;
  readonly metrics: ServiceMetrics;
  readonly maxBodyBytes: number;
}

const soapPathSet = new Set(soapPaths);

/**
 * @example
 * const lane = createSoapFastLane({ store, cache, publicUrl, metrics, maxBodyBytes });
 * createServer((req, res) => lane(req, res, () => fastifyHandler(req, res)));
 */
export function createSoapFastLane(options: SoapFastLaneOptions) {
  const { store, cache, publicUrl, metrics, maxBodyBytes } = options;

  async function serve(req: WithPreRead, res: ServerResponse, path: string, next: () => void): Promise<void> {
    const started = performance.now();
    const result = await readRequestBody(req, maxBodyBytes);
    if (result.kind !== "ok") {
      req[preRead] = { result };
      return next();
    }
    const contentType = req.headers["content-type"];
    const key = cache.key(result.body, contentType, requestBaseUrl(req, publicUrl));
    const { version, hit } = await cache.lookup(key, () => store.dataVersion());
    if (hit === undefined) {
      // The route counts the lookup when it answers (a miss, or a skip for a body too large to key).
      req[preRead] = { result, key, version };
      return next();
    }
    res.writeHead(200, {
      "Content-Type": hit.contentType,
      "Content-Length": hit.body.length,
      // As routes.ts sets on every answer that goes through Fastify.
      "X-Content-Type-Options": "nosniff",
    });
    endWithBody(res, hit.body);
    metrics.answerCache("hit");
    metrics.soapCall(hit.operation ?? "unknown", "none");
    metrics.httpRequest(path, "POST", 200, (performance.now() - started) / 1000);
  }

  /** Takes the request when it is a SOAP call; otherwise calls `next` at once. */
  return function soapFastLane(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    const url = req.method === "POST" ? canonicalSoapUrl(req.url ?? "/") : "";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    if (!soapPathSet.has(path)) {
      next();
      return;
    }
    serve(req, res, path, next).catch(() => {
      // Only the store's version read can fail here, and it is caught above: hand the call on.
      if (!res.headersSent) next();
    });
  };
}
