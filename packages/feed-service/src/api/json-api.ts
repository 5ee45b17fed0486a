/**
 * The JSON API (spec §5.1): one handler per route of routes.ts, made from its operation's table
 * row. A handler reads the arguments, calls the operation, and writes `{"items": ...}`; answers
 * of pure operations come from the answer cache while the data is unchanged. Every 200 carries an
 * ETag (a hash of the answer bytes, which the cache keeps per data version) and
 * `Cache-Control: public, max-age=30`; a matching `If-None-Match` gets 304. Every answer carries
 * `Access-Control-Allow-Origin: *` (read-only public data).
 */
import type { FastifyReply, FastifyRequest, FastifySchema, RouteHandlerMethod } from "fastify";
import { requestBaseUrl } from "../http/base-url.js";
import { entityTag, notModified } from "../http/conditional-get.js";
import { plainProblem, sendOperationError, sendProblem } from "../http/problem-details.js";
import type { ResponseCache } from "../http/response-cache.js";
import { answerBody } from "../http/sliced-body.js";
import type { ServiceMetrics } from "../metrics/service-metrics.js";
import type { OperationRunner } from "../operations/operation-runner.js";
import type { Store } from "../store/store.js";
import {
  inQueryTerms,
  normaliseQueryParameters,
  type QueryParameters,
  readApiArguments,
  renamedArguments,
} from "./api-arguments.js";
import { encodeItems } from "./json-items.js";
import { routeSchema } from "./openapi-schemas.js";

export interface JsonApiOptions {
  readonly store: Store;
  readonly runner: OperationRunner;
  readonly publicUrl: string | undefined;
  readonly cache: ResponseCache | undefined;
  readonly metrics: ServiceMetrics;
  readonly logError: (message: string) => void;
}

export interface JsonRoute {
  readonly schema: FastifySchema;
  readonly onRequest: (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;
  readonly handler: RouteHandlerMethod;
}

export interface JsonApi {
  /** The schema and handler of `GET path`, answered by `operation` with these query parameters. */
  route(path: string, operation: string, query?: QueryParameters): JsonRoute;
  /** Sets the CORS headers every API answer carries (a route hook). */
  cors(request: FastifyRequest, reply: FastifyReply, done: () => void): void;
  /** `OPTIONS /api/*`: the CORS preflight for requests with If-None-Match. */
  preflight(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** A path under /api that no route has. */
  notFound(request: FastifyRequest, reply: FastifyReply): void;
  /** A route's path asked with a method it does not answer: 405 with `Allow`. */
  methodNotAllowed(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

/** What every API path answers; other methods of a known path get 405 (RFC 9110 §15.5.6). */
export const apiMethods = "GET, HEAD, OPTIONS";
/** The methods a known API path refuses with 405 rather than 404. */
export const refusedMethods = ["POST", "PUT", "PATCH", "DELETE"] as const;

const jsonContentType = "application/json; charset=utf-8";
const cacheControl = "public, max-age=30";

function setCors(reply: FastifyReply): void {
  reply.header("access-control-allow-origin", "*");
  reply.header("access-control-expose-headers", "ETag, Retry-After");
}

export function createJsonApi(options: JsonApiOptions): JsonApi {
  const { store, runner, publicUrl, cache, metrics, logError } = options;

  function cors(_request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    setCors(reply);
    done();
  }

  /** Returns the reply: the async handlers return it, as Fastify needs for a streamed body. */
  function sendAnswer(
    request: FastifyRequest,
    reply: FastifyReply,
    body: Buffer,
    etag: string,
  ): FastifyReply {
    reply.header("etag", etag).header("cache-control", cacheControl);
    if (notModified(request.headers, etag)) return reply.code(304).send();
    // A large page is written a slice per turn of the event loop (http/sliced-body.ts).
    return reply
      .code(200)
      .header("content-type", jsonContentType)
      .header("content-length", body.length)
      .send(answerBody(body));
  }

  return {
    route(path, operationName, queryParameters = {}) {
      const operation = runner.operation(operationName);
      if (!operation) throw new Error(`${path}: no operation named ${operationName}`);
      const query = normaliseQueryParameters(queryParameters);
      const renamed = renamedArguments(query);
      const pathParameters = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);
      // Post lists carry the URL of their next page (spec §5.1); without an offset there is none.
      const postList = operation.columns.some((c) => c.name === "trackingLink");
      const paged = postList && query.has("offset");
      const schema = routeSchema({ path, operation, query, pathParameters, postList });

      async function handler(
        request: FastifyRequest,
        reply: FastifyReply,
      ): Promise<FastifyReply | undefined> {
        const baseUrl = requestBaseUrl(request.raw, publicUrl);
        const key = operation!.pure ? cache?.key(request.url, "application/json", baseUrl) : undefined;
        const { version, hit } = (await cache?.lookup(key, () => store.dataVersion())) ?? {};
        if (operation!.pure) metrics.answerCache(hit ? "hit" : key !== undefined ? "miss" : "skip");
        if (hit?.etag !== undefined) return sendAnswer(request, reply, hit.body, hit.etag);
        try {
          const args = readApiArguments(
            operation!,
            query,
            request.query as Record<string, unknown>,
            request.params as Record<string, string>,
          );
          const records = await runner.call(operationName, args, { baseUrl });
          let next: string | null | undefined;
          if (postList) {
            const limit = Number(args.limit);
            next =
              paged && limit > 0 && records.length === limit ? nextPage(baseUrl, request.url, args) : null;
          }
          const alsoIn = postList ? await store.alsoIn(records.map((r) => Number(r.postId))) : undefined;
          const body = Buffer.from(encodeItems(operation!.columns, records, next, alsoIn), "utf8");
          const etag = entityTag(body);
          if (key !== undefined && version !== undefined) {
            cache?.set(key, { version, contentType: jsonContentType, body, etag, operation: operationName });
          }
          return sendAnswer(request, reply, body, etag);
        } catch (error) {
          sendOperationError(reply, inQueryTerms(error, renamed), logError, `GET ${path}`);
          return reply;
        }
      }
      return { schema, onRequest: cors, handler };
    },

    cors,

    async preflight(_request, reply) {
      setCors(reply);
      reply
        .code(204)
        .header("access-control-allow-methods", "GET, HEAD, OPTIONS")
        .header("access-control-allow-headers", "If-None-Match, If-Modified-Since, Accept")
        .header("access-control-max-age", "86400")
        .send();
    },

    notFound(request, reply) {
      setCors(reply);
      sendProblem(
        reply,
        plainProblem(
          404,
          `No API route has the path ${JSON.stringify(request.url.split("?")[0].slice(0, 100))}; the routes are listed in /api/v1/openapi.json.`,
          "FEED_NOT_FOUND",
        ),
      );
    },

    async methodNotAllowed(request, reply) {
      setCors(reply);
      reply.header("allow", apiMethods);
      const path = JSON.stringify(request.url.split("?")[0].slice(0, 100));
      sendProblem(
        reply,
        plainProblem(
          405,
          `The path ${path} answers GET and HEAD only (the API is read-only); got ${request.method}.`,
          "FEED_METHOD_NOT_ALLOWED",
        ),
      );
    },
  };
}

/** The URL of the page after this one: the same request with `offset` moved on by `limit`. */
function nextPage(baseUrl: string, url: string, args: Readonly<Record<string, unknown>>): string {
  const q = url.indexOf("?");
  const params = new URLSearchParams(q === -1 ? "" : url.slice(q + 1));
  params.set("offset", String(Number(args.offset) + Number(args.limit)));
  return `${baseUrl}${q === -1 ? url : url.slice(0, q)}?${params}`;
}
