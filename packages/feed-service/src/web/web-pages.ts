/**
 * The web interface as Fastify handlers (spec §5.3): each page route runs its renderer and answers
 * HTML with the security headers, or the error page its FeedServiceError code calls for; plus the
 * hashed assets, /opensearch.xml, /favicon.ico and the HTML 404. The routes file lists the paths;
 * this module only makes the handlers, so the pages can be served by any Fastify instance.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { normalisePublicUrl, requestBaseUrl } from "../http/base-url.js";
import type { OperationRunner } from "../operations/operation-runner.js";
import { defaultSiteName } from "../site-name.js";
import { type AssetCatalog, assetCacheControl, loadAssetCatalog } from "./asset-catalog.js";
import { openSearchContentType, openSearchDescription } from "./opensearch-description.js";
import type { PageContext, PageRenderer } from "./page-context.js";
import { errorPage, notFoundPage } from "./pages/error-page.js";
import { cachingRunner, type VersionScope } from "./record-cache.js";
import { pageSecurityHeaders } from "./security-headers.js";

export interface WebPagesOptions {
  readonly runner: OperationRunner;
  readonly publicUrl?: string;
  /** The site's name in every page's title and header and the OpenSearch description. */
  readonly siteName?: string;
  readonly now?: () => number;
  /** Where unexpected errors are reported (server side only; the page shows a generic message). */
  readonly logError?: (message: string) => void;
  /**
   * The store's data version (Store.dataVersion; for "besides-search-history", what
   * Store.dataVersionBesidesSearchHistory gives where the store has it): with it, the records of pure operations are
   * reused while the data is unchanged (record-cache.ts); without it, every page reads afresh.
   */
  readonly dataVersion?: (scope: VersionScope) => Promise<string>;
  /** Assets already loaded (tests share one catalog); loaded from src/web/assets otherwise. */
  readonly assets?: AssetCatalog;
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface WebPages {
  readonly assets: AssetCatalog;
  /** A handler for a page route. */
  page(render: PageRenderer): Handler;
  /** `GET /assets/:file`. */
  readonly asset: Handler;
  /** `GET /opensearch.xml`. */
  readonly openSearch: Handler;
  /** `GET /favicon.ico`: browsers ask for it before reading the page's icon link. */
  readonly favicon: Handler;
  /** The HTML 404 page, for a not-found handler that answers browsers. */
  readonly notFound: Handler;
}

/**
 * @example
 * const web = createWebPages({ runner });
 * app.get("/", web.page(recentPage));
 * app.get("/assets/:file", web.asset);
 */
export function createWebPages(options: WebPagesOptions): WebPages {
  const assets = options.assets ?? loadAssetCatalog();
  const publicUrl = options.publicUrl ? normalisePublicUrl(options.publicUrl) : undefined;
  const now = options.now ?? Date.now;
  const siteName = options.siteName ?? defaultSiteName;
  const logError =
    options.logError ?? ((message: string) => process.stderr.write(`feed-service: ${message}\n`));

  const runner = options.dataVersion ? cachingRunner(options.runner, options.dataVersion) : options.runner;
  const contextFor = (request: FastifyRequest): PageContext => ({
    runner,
    baseUrl: requestBaseUrl(request.raw, publicUrl),
    now: now(),
    assets,
    siteName,
  });

  function sendHtml(reply: FastifyReply, status: number, body: string, cacheControl: string): void {
    reply.code(status).headers(pageSecurityHeaders).header("Cache-Control", cacheControl);
    reply.type("text/html; charset=utf-8").send(body);
  }

  return {
    assets,
    page(render) {
      return async (request, reply) => {
        const context = contextFor(request);
        const url = request.raw.url ?? "/";
        const q = url.indexOf("?");
        const page = {
          path: q === -1 ? url : url.slice(0, q),
          query: new URLSearchParams(q === -1 ? "" : url.slice(q + 1)),
          params: (request.params ?? {}) as Record<string, string>,
        };
        try {
          const rendered = await render(page, context);
          // Lists change as feeds are read: a short shared lifetime; search records history, so none.
          sendHtml(
            reply,
            200,
            rendered.body.toString(),
            rendered.cacheable === false ? "no-store" : "public, max-age=30",
          );
        } catch (error) {
          const failed = errorPage(error, context);
          if (failed.status === 500) {
            logError(
              `page ${url.slice(0, 200)} failed: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
          if (failed.retryAfterSeconds !== undefined)
            reply.header("Retry-After", String(failed.retryAfterSeconds));
          sendHtml(reply, failed.status, failed.body.toString(), "no-store");
        }
      };
    },
    async asset(request, reply) {
      const found = assets.get(request.url.split("?")[0]!);
      if (!found) {
        reply.code(404).type("text/plain; charset=utf-8").send("No asset has this name.\n");
        return;
      }
      const gzip = /\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""));
      reply
        .header("Cache-Control", assetCacheControl)
        .header("X-Content-Type-Options", "nosniff")
        .header("Vary", "Accept-Encoding");
      if (gzip) reply.header("Content-Encoding", "gzip");
      reply.type(found.contentType).send(gzip ? found.gzipped : found.body);
    },
    async openSearch(request, reply) {
      const body = openSearchDescription(contextFor(request).baseUrl, assets.favicon, siteName);
      reply.header("Cache-Control", "public, max-age=86400").type(openSearchContentType).send(body);
    },
    async favicon(_request, reply) {
      reply
        .code(301)
        .header("Location", assets.favicon)
        .header("Cache-Control", "public, max-age=86400")
        .send();
    },
    async notFound(request, reply) {
      sendHtml(reply, 404, notFoundPage(contextFor(request)).body.toString(), "no-store");
    },
  };
}
