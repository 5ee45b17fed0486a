/**
 * The SOAP endpoint on Fastify (spec §1–§3): POST a call, GET ?wsdl for the WSDL, 405 for the
 * rest. The body arrives as raw bytes (the one content-type parser of the server, see routes.ts);
 * answers of pure operations come from the answer cache while the data is unchanged.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import type { ServiceMetrics } from "../metrics/service-metrics.js";
import type { OperationRunner } from "../operations/operation-runner.js";
import type { Store } from "../store/store.js";
import { requestBaseUrl } from "./base-url.js";
import { createFeedSoapEndpoint } from "./feed-soap-endpoint.js";
import type { ResponseCache } from "./response-cache.js";
import { answerBody } from "./sliced-body.js";
import { preReadSoapBody } from "./soap-fast-lane.js";

/** The SOAP endpoint and its ColdFusion-era alias (spec §1). */
export const soapPaths: readonly string[] = ["/webservices/FeedAggregator", "/webservices/mxna2.cfc"];

const soapPathByLowerCase = new Map(soapPaths.map((p) => [p.toLowerCase(), p]));
const soapPathLengths = new Set(soapPaths.map((p) => p.length));

/** `url` with a SOAP path written in another case turned into the routed spelling. */
export function canonicalSoapUrl(url: string): string {
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  if (!soapPathLengths.has(path.length)) return url;
  const canonical = soapPathByLowerCase.get(path.toLowerCase());
  return canonical === undefined || canonical === path ? url : canonical + url.slice(path.length);
}

export interface SoapRouteOptions {
  readonly store: Store;
  readonly runner: OperationRunner;
  readonly publicUrl: string | undefined;
  readonly cache: ResponseCache | undefined;
  readonly metrics: ServiceMetrics;
}

export interface SoapRoute {
  /** Resolves to the reply (an async Fastify handler must return it when the body is a stream). */
  post(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  get(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  methodNotAllowed(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Errors Fastify raises before the handler runs (body too large, bad media type) as SOAP faults. */
  error(error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

const textPlain = "text/plain; charset=utf-8";

export function createSoapRoute(options: SoapRouteOptions): SoapRoute {
  const { store, publicUrl, cache, metrics } = options;
  const soap = createFeedSoapEndpoint(options.runner);

  return {
    async post(request, reply) {
      // The fast lane (soap-fast-lane.ts) has read the body and looked the call up already when
      // the answer cache is on; otherwise the content-type parser of routes.ts read it.
      const pre = preReadSoapBody(request.raw);
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const contentType = request.headers["content-type"];
      const baseUrl = requestBaseUrl(request.raw, publicUrl);
      let key = pre?.key;
      let version = pre?.version;
      if (pre === undefined && cache !== undefined) {
        key = cache.key(body, contentType, baseUrl);
        const found = await cache.lookup(key, () => store.dataVersion());
        version = found.version;
        const hit = found.hit;
        if (hit) {
          metrics.answerCache("hit");
          metrics.soapCall(hit.operation ?? "unknown", "none");
          return reply
            .code(200)
            .header("content-type", hit.contentType)
            .header("content-length", hit.body.length)
            .send(answerBody(hit.body));
        }
      }
      if (cache !== undefined) metrics.answerCache(key !== undefined ? "miss" : "skip");
      const { response, pure } = await soap.handle(body, contentType, baseUrl);
      metrics.soapCall(response.operation ?? "unknown", response.fault ?? "none");
      const bytes = typeof response.body === "string" ? Buffer.from(response.body, "utf8") : response.body;
      if (pure && response.status === 200 && key !== undefined && version !== undefined) {
        cache?.set(key, {
          version,
          contentType: response.contentType,
          body: bytes,
          operation: response.operation,
        });
      }
      return reply
        .code(response.status)
        .header("content-type", response.contentType)
        .header("content-length", bytes.length)
        .send(answerBody(bytes));
    },

    async get(request, reply) {
      const url = request.url;
      const q = url.indexOf("?");
      const query = q === -1 ? "" : url.slice(q + 1);
      // soap:address is the path the WSDL was asked for, in the client's own spelling (spec §1).
      const asked = request.originalUrl;
      const path = asked.slice(0, asked.indexOf("?") === -1 ? asked.length : asked.indexOf("?"));
      if (/^wsdl(?:[=&]|$)/i.test(query)) {
        const doc = soap.wsdl(requestBaseUrl(request.raw, publicUrl) + path);
        reply.code(200).header("content-type", "text/xml; charset=utf-8").send(doc);
        return;
      }
      reply
        .code(200)
        .header("content-type", textPlain)
        .send(`This is the FeedAggregator SOAP endpoint; its WSDL is at ${path}?wsdl\n`);
    },

    async methodNotAllowed(_request, reply) {
      reply
        .code(405)
        .header("allow", "GET, POST")
        .header("content-type", textPlain)
        .send("Use POST for SOAP calls and GET ?wsdl for the WSDL.\n");
    },

    async error(error, _request, reply) {
      if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
        const answer = soap.tooLarge();
        metrics.soapCall("unknown", "client");
        // The rest of the body is not read: the answer closes the connection, so the client sees the 413.
        reply.code(answer.status).header("content-type", answer.contentType).header("connection", "close");
        reply.send(answer.body);
        return;
      }
      const message =
        error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE"
          ? "The Content-Type header is not a media type; SOAP 1.1 requests are sent as text/xml."
          : "The request body could not be read (it ended early or its length was wrong).";
      const answer = soap.clientFault(message);
      metrics.soapCall("unknown", "client");
      reply.code(answer.status).header("content-type", answer.contentType).header("connection", "close");
      reply.send(answer.body);
    },
  };
}
