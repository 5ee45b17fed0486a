/**
 * Every route of the service, in one place (as Miniflux's router is): the SOAP endpoint, its alias
 * and WSDL, `/click`, `/healthz`, `/metrics`, the JSON API with its OpenAPI document and docs, the
 * output feeds and the index page. Each adapter's handler parses arguments, calls the operation
 * runner, and lays the records out in its own wire form; nothing else lives in a handler.
 */
import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import { errorCodes, type FastifyInstance } from "fastify";
import { queryParameter } from "../api/api-arguments.js";
import { createJsonApi, refusedMethods } from "../api/json-api.js";
import { openApiInfo } from "../api/openapi-info.js";
import { createOutputFeeds, feedKinds } from "../feeds/output-feeds.js";
import { instrumentRunner } from "../metrics/instrumented-runner.js";
import { defaultMetricsAllow, parseMetricsAllow } from "../metrics/metrics-access.js";
import { createMetricsRoute } from "../metrics/metrics-route.js";
import type { ServiceMetrics } from "../metrics/service-metrics.js";
import type { OperationRunner } from "../operations/operation-runner.js";
import { defaultSiteName } from "../site-name.js";
import type { Store } from "../store/store.js";
import { registerAdminRoutes } from "../web/admin/admin-routes.js";
import { pages } from "../web/pages/page-table.js";
import { createWebPages } from "../web/web-pages.js";
import { webSubCallbackRoutes } from "../websub/callback-routes.js";
import { createClickRoute } from "./click-route.js";
import { handleHealth } from "./health-route.js";
import { readRequestBody } from "./request-body.js";
import type { ResponseCache } from "./response-cache.js";
import { sendText } from "./responses.js";
import { preReadSoapBody } from "./soap-fast-lane.js";
import { createSoapRoute, soapPaths } from "./soap-route.js";

export interface RoutesOptions {
  readonly store: Store;
  readonly metrics: ServiceMetrics;
  /** The answer cache, or undefined when it is off. */
  readonly cache: ResponseCache | undefined;
  readonly maxBodyBytes: number;
  readonly runner: OperationRunner;
  /** Normalised public base URL, or undefined to build it from each request's Host. */
  readonly publicUrl: string | undefined;
  readonly now?: () => number;
  readonly metricsAllow?: string;
  readonly siteName?: string;
  readonly logError: (message: string) => void;
  /** Addresses visitors suggest may reach private hosts (spec §5.5; --allow-private-fetch). */
  readonly allowPrivateFetch?: boolean;
}

/** A path under /feeds/ ending in an output feed's extension: a feed reader's request. */
function isFeedPath(url: string): boolean {
  return /^\/feeds\/[^?]*\.(rss|atom|json)(\?|$)/.test(url);
}

/** Registers the routes on the root instance itself (no plugin scope), after the OpenAPI plugin. */
function unscoped<T>(plugin: T): T {
  (plugin as Record<symbol, boolean>)[Symbol.for("skip-override")] = true;
  return plugin;
}

const hidden = { schema: { hide: true } } as const;

export function registerRoutes(app: FastifyInstance, options: RoutesOptions): void {
  const { store, publicUrl, logError, metrics, cache } = options;
  const runner = instrumentRunner(options.runner, metrics);
  const soap = createSoapRoute({ store, runner, publicUrl, cache, metrics });
  const clicks = createClickRoute(store, options.now);
  const metricsRoute = createMetricsRoute(
    metrics,
    parseMetricsAllow(options.metricsAllow ?? defaultMetricsAllow),
  );
  const api = createJsonApi({ store, runner, publicUrl, cache, metrics, logError });
  const siteName = options.siteName ?? defaultSiteName;
  const feed = createOutputFeeds({
    store,
    runner,
    publicUrl,
    cache,
    metrics,
    now: options.now,
    logError,
    siteName,
  });
  const web = createWebPages({
    runner,
    publicUrl,
    siteName,
    now: options.now,
    logError,
    dataVersion: (scope) =>
      scope === "besides-search-history" && store.dataVersionBesidesSearchHistory
        ? store.dataVersionBesidesSearchHistory()
        : store.dataVersion(),
  });

  // The one body the service reads is a SOAP call: raw bytes, whatever the Content-Type says
  // (spec §3 decodes the charset itself), up to 1 MiB (else 413). The SOAP fast lane may have
  // read it already (soap-fast-lane.ts).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (request, payload, done) => {
    const pre = preReadSoapBody(request.raw);
    (pre ? Promise.resolve(pre.result) : readRequestBody(payload, options.maxBodyBytes)).then((read) => {
      if (read.kind === "ok") return done(null, read.body);
      // The rest of a body that is too large is drained, and the 413 closes the connection.
      if (read.kind === "too-large") {
        payload.resume();
        return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      }
      done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
    });
  });
  // Route schemas document the API; the operations validate (with the messages of spec §3).
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  // Every answer, plain text included (the WebSub verification echoes a hub's challenge), tells
  // browsers not to guess another type from its bytes (Fetch §X-Content-Type-Options).
  app.addHook("onRequest", (_request, reply, done) => {
    reply.header("x-content-type-options", "nosniff");
    done();
  });
  app.addHook("onResponse", (request, reply, done) => {
    metrics.httpRequest(
      request.routeOptions.url ?? "unmatched",
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith("/api/")) return api.notFound(request, reply);
    if (isFeedPath(request.url)) return feed.notFound(request, reply);
    // A person who mistyped an address gets the site's 404 page, with its navigation and search;
    // programs (no text/html in Accept, or not a GET) keep the short plain-text answer.
    const method = request.method;
    if ((method === "GET" || method === "HEAD") && /\btext\/html\b/i.test(request.headers.accept ?? "")) {
      return web.notFound(request, reply);
    }
    sendText(reply, 404, "Not found.\n");
  });
  app.setErrorHandler((error, request, reply) => {
    logError(
      `${request.method} ${request.url.slice(0, 200)} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    if (reply.sent) return;
    sendText(reply, 500, "The server failed to answer this request.\n");
  });

  // WebSub callbacks (websub/callback-routes.ts): only with a public URL, which callbacks live under.
  if (publicUrl) {
    const subscriptions = store.websub;
    const { maxBodyBytes, now } = options;
    app.register(webSubCallbackRoutes({ store, subscriptions, maxBodyBytes, now, logError }));
  }

  app.register(fastifySwagger, { openapi: openApiInfo });
  // The interactive docs: Swagger UI with every asset served from the package, no CDN.
  app.register(fastifySwaggerUi, {
    routePrefix: "/api/docs",
    staticCSP: true,
    uiConfig: { deepLinking: true, validatorUrl: null },
  });

  app.register(
    unscoped(async (app: FastifyInstance) => {
      // SOAP 1.1 (spec §1–§3): the endpoint and its alias; GET ?wsdl; other methods 405.
      for (const path of soapPaths) {
        app.post(path, { ...hidden, errorHandler: soap.error }, soap.post);
        app.get(path, hidden, soap.get);
        app.route({
          method: ["PUT", "DELETE", "PATCH", "OPTIONS"],
          url: path,
          ...hidden,
          handler: soap.methodNotAllowed,
        });
      }
      // Click-throughs (spec §4) and operations (§5.4).
      app.get("/click/:postId", hidden, clicks.handle);
      app.get("/healthz", hidden, (_request, reply) => handleHealth(store, reply));
      app.get("/metrics", hidden, metricsRoute);

      // JSON API (spec §5.1): route, operation, query parameters with their defaults.
      const page = { limit: 20, offset: 0 };
      const languages = { languageIds: "" };
      // A known path asked with another method gets 405 with Allow, not 404 (RFC 9110 §15.5.6).
      const refuse = (path: string, handler: typeof api.methodNotAllowed) =>
        app.route({ method: [...refusedMethods], url: path, ...hidden, handler });
      const json = (path: string, operation: string, query?: Parameters<typeof api.route>[2]) => {
        app.get(path, api.route(path, operation, query));
        refuse(path, api.methodNotAllowed);
      };
      json("/api/v1/posts", "getMostRecentPosts", { ...page, ...languages });
      json("/api/v1/posts/popular", "getMostPopularPosts", { daysBack: 7, limit: 20, categoryId: null });
      json("/api/v1/search", "search", {
        q: queryParameter("searchTerms"),
        sortBy: "",
        ...page,
        ...languages,
      });
      json("/api/v1/search/history", "getSearchHistory");
      json("/api/v1/categories", "getCategories");
      json("/api/v1/categories/:categoryId/posts", "getPostsByCategory", {
        ...page,
        ...languages,
        since: queryParameter("sincepost", null),
      });
      json("/api/v1/categories/:categoryId/feeds", "getFeedsByCategory");
      json("/api/v1/smart-categories", "getSmartCategories");
      json("/api/v1/smart-categories/:idOrKey/posts", "getPostsBySmartCategory", { ...page, ...languages });
      json("/api/v1/feeds", "getFeeds");
      json("/api/v1/feeds/popular", "getMostPopularFeeds", { daysBack: 7, limit: 20 });
      json("/api/v1/feeds/prolific", "getMostProlificFeeds", { daysBack: 7, limit: 20 });
      json("/api/v1/feeds/:feedId/posts", "getPostsByFeed", page);
      json("/api/v1/languages", "getLanguages");
      json("/api/v1/languages/stats", "getAggregateLanguageData");
      json("/api/v1/languages/:languageId/feeds", "getFeedsByLanguage");
      app.options("/api/*", hidden, api.preflight);
      app.get("/api/v1/openapi.json", { ...hidden, onRequest: api.cors }, async () => app.swagger());
      refuse("/api/v1/openapi.json", api.methodNotAllowed);

      // Output feeds (spec §5.2): .rss, .atom or .json.
      for (const [path, kind] of [
        ["/feeds/recent.:format", feedKinds.recent],
        ["/feeds/categories/:categoryId.:format", feedKinds.category],
        ["/feeds/smart-categories/:idOrKey.:format", feedKinds.smartCategory],
        ["/feeds/search.:format", feedKinds.search],
      ] as const) {
        app.get(path, hidden, feed.route(kind));
        refuse(path, feed.methodNotAllowed);
      }

      // Web pages (spec §5.3): server-rendered HTML over the same runner, its hashed assets, the
      // OpenSearch description and the favicon.
      app.get("/", hidden, web.page(pages.recent));
      app.get("/search", hidden, web.page(pages.search));
      app.get("/popular", hidden, web.page(pages.popular));
      app.get("/categories", hidden, web.page(pages.categories));
      app.get("/categories/:categoryId", hidden, web.page(pages.category));
      app.get("/smart-categories", hidden, web.page(pages.smartCategories));
      app.get("/smart-categories/:idOrKey", hidden, web.page(pages.smartCategory));
      app.get("/feeds", hidden, web.page(pages.feeds));
      // `/feeds/popular.rss` asks for an output feed that does not exist, not for a feed's page.
      const feedPage = web.page(pages.feed);
      app.get("/feeds/:feedId", hidden, (request, reply) =>
        isFeedPath(request.url) ? feed.notFound(request, reply) : feedPage(request, reply),
      );
      app.get("/languages", hidden, web.page(pages.languages));
      app.get("/assets/:file", hidden, web.asset);
      app.get("/opensearch.xml", hidden, web.openSearch);
      app.get("/favicon.ico", hidden, web.favicon);

      // Administrators' pages and the suggestion form (spec §5.5).
      registerAdminRoutes(app, { ...options, runner, assets: web.assets, siteName, publicUrl, logError });
    }),
  );
}
