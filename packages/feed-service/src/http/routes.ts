/**
 * Every route of the service, in one place (as Miniflux's router is): the SOAP endpoint, its alias
 * and WSDL, `/click`, `/healthz`, `/metrics`, the JSON API with its OpenAPI document and docs, the
 * output feeds and the index page. Each adapter's handler parses arguments, calls the operation
 * runner, and lays the records out in its own wire form; nothing else lives in a handler.
 */
import type { FastifyInstance } from "fastify";
import { instrumentRunner } from "../metrics/instrumented-runner.js";
import { defaultMetricsAllow, parseMetricsAllow } from "../metrics/metrics-access.js";
import { createMetricsRoute } from "../metrics/metrics-route.js";
import { createServiceMetrics } from "../metrics/service-metrics.js";
import type { OperationRunner } from "../operations/operation-runner.js";
import type { Store } from "../store/store.js";
import { pages } from "../web/pages/page-table.js";
import { createWebPages } from "../web/web-pages.js";
import { createClickRoute } from "./click-route.js";
import { handleHealth } from "./health-route.js";
import { ResponseCache } from "./response-cache.js";
import { sendText } from "./responses.js";
import { createSoapRoute, soapPaths } from "./soap-route.js";

export interface RoutesOptions {
  readonly store: Store;
  readonly runner: OperationRunner;
  /** Normalised public base URL, or undefined to build it from each request's Host. */
  readonly publicUrl: string | undefined;
  readonly now?: () => number;
  readonly responseCache?: boolean;
  readonly metricsAllow?: string;
  readonly logError: (message: string) => void;
}

export function registerRoutes(app: FastifyInstance, options: RoutesOptions): void {
  const { store, publicUrl, logError } = options;
  const metrics = createServiceMetrics({
    brokenFeeds: async () => (await store.adminFeeds()).filter((f) => f.errorCount > 0).length,
  });
  const runner = instrumentRunner(options.runner, metrics);
  const cache = options.responseCache === false ? undefined : new ResponseCache();
  const soap = createSoapRoute({ store, runner, publicUrl, cache, metrics });
  const clicks = createClickRoute(store, options.now);
  const metricsRoute = createMetricsRoute(
    metrics,
    parseMetricsAllow(options.metricsAllow ?? defaultMetricsAllow),
  );

  // The one body the service reads is a SOAP call: raw bytes, whatever the Content-Type says
  // (spec §3 decodes the charset itself), up to the server's body limit (1 MiB, else 413).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

  app.addHook("onResponse", (request, reply, done) => {
    metrics.httpRequest(
      request.routeOptions.url ?? "unmatched",
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  app.setNotFoundHandler((_request, reply) => sendText(reply, 404, "Not found.\n"));
  app.setErrorHandler((error, request, reply) => {
    logError(
      `${request.method} ${request.url.slice(0, 200)} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    if (reply.sent) return;
    sendText(reply, 500, "The server failed to answer this request.\n");
  });

  // SOAP 1.1 (spec §1–§3): the endpoint and its alias; GET ?wsdl; other methods 405.
  for (const path of soapPaths) {
    app.post(path, { errorHandler: soap.error }, soap.post);
    app.get(path, soap.get);
    app.route({ method: ["PUT", "DELETE", "PATCH", "OPTIONS"], url: path, handler: soap.methodNotAllowed });
  }
  // Click-throughs (spec §4) and operations (§5.4).
  app.get("/click/:postId", clicks.handle);
  app.get("/healthz", (_request, reply) => handleHealth(store, reply));
  app.get("/metrics", metricsRoute);

  // Web pages (spec §5.3): server-rendered HTML over the same runner, its hashed assets, the
  // OpenSearch description and the favicon.
  const web = createWebPages({ runner, publicUrl, now: options.now, logError });
  app.get("/", web.page(pages.recent));
  app.get("/search", web.page(pages.search));
  app.get("/popular", web.page(pages.popular));
  app.get("/categories", web.page(pages.categories));
  app.get("/categories/:categoryId", web.page(pages.category));
  app.get("/smart-categories", web.page(pages.smartCategories));
  app.get("/smart-categories/:idOrKey", web.page(pages.smartCategory));
  app.get("/feeds", web.page(pages.feeds));
  app.get("/feeds/:feedId", web.page(pages.feed));
  app.get("/languages", web.page(pages.languages));
  app.get("/assets/:file", web.asset);
  app.get("/opensearch.xml", web.openSearch);
  app.get("/favicon.ico", web.favicon);
}
