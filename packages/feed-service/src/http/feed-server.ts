/**
 * The HTTP server of the feed service: Fastify on a node:http server whose limits are set here
 * (keep-alive, HTTP/1.0 and 1.1, the whole request within 30 s), with every route in routes.ts.
 * A failing handler answers 500 with a generic message; it never crashes the process and never
 * sends a stack trace, SQL text or server path.
 */
import { Agent, createServer, request as httpRequest, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { requestLimits } from "@feed-toolkit/soap";
import Fastify, { type FastifyInstance } from "fastify";
import { createServiceMetrics, type ServiceMetrics } from "../metrics/service-metrics.js";
import type { OperationRunner } from "../operations/operation-runner.js";
import { absentWord } from "../store/cache-warm.js";
import type { Store } from "../store/store.js";
import { collectGarbage } from "../threads/collect-garbage.js";
import { normalisePublicUrl } from "./base-url.js";
import { answerFrameworkError } from "./framework-errors.js";
import { ResponseCache } from "./response-cache.js";
import { registerRoutes } from "./routes.js";
import { createSoapFastLane } from "./soap-fast-lane.js";
import { canonicalSoapUrl } from "./soap-route.js";

export { soapPaths } from "./soap-route.js";

export interface FeedServerOptions {
  readonly store: Store;
  readonly runner: OperationRunner;
  /** Public base URL for `soap:address`, tracking links and feed links; else each request's Host is used. */
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
  /**
   * Who may read `/metrics` (spec §5.4): addresses and CIDR blocks, comma-separated; default
   * loopback only (`127.0.0.0/8,::1`). Anyone else gets 404.
   */
  readonly metricsAllow?: string;
  /** The site's name in feeds, pages and the OpenSearch description (default "Feed aggregator"). */
  readonly siteName?: string;
  /** Where unexpected handler errors are reported (server side only). */
  readonly logError?: (message: string) => void;
  /** Addresses visitors suggest may reach loopback, private and link-local hosts (spec §5.5). */
  readonly allowPrivateFetch?: boolean;
}

export interface FeedServer {
  readonly server: Server;
  /** The Fastify instance (for `inject` in tests). */
  readonly app: FastifyInstance;
  /** The figures of `/metrics`; the background ingest reports its passes here. */
  readonly metrics: ServiceMetrics;
  /**
   * Answers a few read-only requests before `listen`, over a socket of its own on 127.0.0.1
   * (closed again): SOAP getCategories, getFeeds, a 1,000-post getMostRecentPosts and getMostPopularPosts,
   * searches for a rare word and (1,000 rows) a common one past their first page (not recorded
   * in the search history), a JSON page and the home page. A process's first request compiles
   * the code of the whole request path, its first 1,000-row answer the code that reads and writes
   * that many rows, and its first search of a common word the code and counts of that path, which
   * its first clients would otherwise wait for (bench/NOTES.md has the measured costs); the first
   * database connections open too. They count in /metrics. Last, a full collection of this thread's
   * heap (collect-garbage.ts).
   * Failures are ignored: this only warms, it checks nothing.
   */
  prime(): Promise<void>;
  /** Starts listening; resolves with the bound address (port 0 picks a free port). */
  listen(port: number, host: string): Promise<AddressInfo>;
  /**
   * Stops taking connections, lets the requests in flight finish for up to `closeGraceMs`, then
   * cuts every connection still open (a stalled upload or a client that stopped reading).
   */
  close(): Promise<void>;
}

/** How long a stop lets requests in flight finish before their connections are cut. */
export const closeGraceMs = 3000;

const SOAP_HEADERS = { "content-type": "text/xml; charset=utf-8", soapaction: '""' };

/** A server for `listener` on a free port of 127.0.0.1, or undefined when none can listen. */
function listenOnLoopback(listener: RequestListener): Promise<Server | undefined> {
  const probe = createServer({ keepAliveTimeout: 5000 }, listener);
  return new Promise((resolve) => {
    probe.once("error", () => resolve(undefined));
    // Exclusive: in a cluster worker a port-0 listen would otherwise be shared through the
    // primary, under the same key as the service's own `--port 0`.
    probe.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => resolve(probe));
  });
}

/** One request to `server`, read to its end; settles (never rejects) when done or failed. */
function sendTo(server: Server, agent: Agent, path: string, body?: string): Promise<void> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path,
        agent,
        method: body === undefined ? "GET" : "POST",
        headers: body === undefined ? {} : SOAP_HEADERS,
      },
      (res) => {
        res.on("error", () => resolve());
        res.on("end", () => resolve());
        res.resume();
      },
    );
    req.on("error", () => resolve());
    req.end(body);
  });
}

/**
 * @example
 * const { listen } = createFeedServer({ store, runner: createOperationRunner({ store, parseSearch }) });
 * const address = await listen(8080, "0.0.0.0");
 */
export function createFeedServer(options: FeedServerOptions): FeedServer {
  const bodyTimeoutMs = options.bodyTimeoutMs ?? requestLimits.bodyTimeoutMs;
  const maxBodyBytes = options.maxBodyBytes ?? requestLimits.maxBodyBytes;
  const publicUrl = options.publicUrl ? normalisePublicUrl(options.publicUrl) : undefined;
  const { store } = options;
  const metrics = createServiceMetrics({
    brokenFeeds: async () => (await store.adminFeeds()).filter((f) => f.errorCount > 0).length,
    connections: store.connectionStats ? () => store.connectionStats!() : undefined,
  });
  const cache = options.responseCache === false ? undefined : new ResponseCache();
  const fastLane = cache && createSoapFastLane({ store, cache, publicUrl, metrics, maxBodyBytes });
  let server: Server | undefined;
  let requestListener: RequestListener | undefined;
  const app = Fastify({
    // The node:http server is made here so that its limits stay exactly those of spec §3.
    serverFactory: (handler) => {
      requestListener = fastLane ? (req, res) => fastLane(req, res, () => handler(req, res)) : handler;
      server = createServer(
        {
          requestTimeout: bodyTimeoutMs,
          headersTimeout: Math.min(bodyTimeoutMs, 20_000),
          // Node checks the timeouts above on this interval; the default (30 s) would double them.
          connectionsCheckingInterval: Math.min(1000, bodyTimeoutMs),
          keepAliveTimeout: 5000,
        },
        requestListener,
      );
      return server;
    },
    // SOAP clients of the Axis era write the endpoint path in any case (spec §1 names one spelling).
    rewriteUrl: (req) => canonicalSoapUrl(req.url ?? "/"),
    bodyLimit: maxBodyBytes,
    // Idle keep-alive sockets close at once; busy ones get closeGraceMs in close() below.
    forceCloseConnections: "idle",
    logger: false,
    frameworkErrors: answerFrameworkError,
  });
  registerRoutes(app, {
    ...options,
    metrics,
    cache,
    maxBodyBytes,
    publicUrl,
    logError: options.logError ?? ((message) => process.stderr.write(`feed-service: ${message}\n`)),
  });
  const ready = app.ready();
  return {
    get server() {
      if (!server) throw new Error("the HTTP server is made when the app is");
      return server;
    },
    app,
    metrics,
    async prime() {
      await ready;
      // Over a socket of its own, as clients call: in process (app.inject) the node:http parser,
      // the SOAP fast lane and the writing of an answer to a socket stay cold (measured in
      // bench/NOTES.md: a first getCategories over HTTP is slower after an in-process prime).
      const probe = requestListener && (await listenOnLoopback(requestListener));
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const send = (path: string, body?: string): Promise<unknown> =>
        probe
          ? sendTo(probe, agent, path, body)
          : app.inject({
              method: body === undefined ? "GET" : "POST",
              url: path,
              headers: body === undefined ? {} : SOAP_HEADERS,
              ...(body === undefined ? {} : { payload: body }),
            });
      const soap = (call: string) =>
        send(
          "/webservices/FeedAggregator",
          `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>${call}</soapenv:Body></soapenv:Envelope>`,
        );
      const requests = [
        () => soap('<ns1:getCategories xmlns:ns1="http://webservices"/>'),
        // Every feed (no argument to choose): the feed lists' and rankings' encoder keeps each
        // feed's row encoded (the operation table's row memo), so their first calls find them.
        () => soap('<ns1:getFeeds xmlns:ns1="http://webservices"/>'),
        () =>
          soap(
            '<ns1:getMostRecentPosts xmlns:ns1="http://webservices"><limit>1000</limit><offset>0</offset><languageIds></languageIds></ns1:getMostRecentPosts>',
          ),
        () =>
          soap(
            '<ns1:getMostPopularPosts xmlns:ns1="http://webservices"><daysBack>36500</daysBack><limit>1000</limit><categoryId xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/></ns1:getMostPopularPosts>',
          ),
        // Searches by relevance and by date for a word no post holds (past offset 0, which would
        // record it): the search paths' code and statements, and no particular word's data
        // (spec §4 Latency).
        ...["relevance", "date"].map(
          (sortBy) => () =>
            soap(
              `<ns1:search xmlns:ns1="http://webservices"><limit>1000</limit><offset>20</offset><searchTerms>${absentWord()}</searchTerms><sortBy>${sortBy}</sortBy><languageIds></languageIds></ns1:search>`,
            ),
        ),
        // A `feed:` of a word no feed's name holds: every feed's name read and analysed as search
        // words, which the stores keep until a feed changes (sqlite-feed-names.ts,
        // postgres-feed-names.ts), and no feed's posts.
        () =>
          soap(
            `<ns1:search xmlns:ns1="http://webservices"><limit>20</limit><offset>20</offset><searchTerms>feed:${absentWord()}</searchTerms><sortBy>date</sortBy><languageIds></languageIds></ns1:search>`,
          ),
        () => send("/api/v1/posts?limit=20"),
        () => send("/"),
      ];
      try {
        for (const request of requests) await request().catch(() => undefined);
      } finally {
        agent.destroy();
        if (probe) {
          probe.closeAllConnections();
          await new Promise((resolve) => probe.close(resolve));
        }
        // The requests' garbage and survivors are not left for the first client's call.
        collectGarbage();
      }
    },
    async listen(port, host) {
      await ready;
      await app.listen({ port, host });
      return app.server.address() as AddressInfo;
    },
    async close() {
      // A socket whose answer ends during the grace is idle from then: reap it rather than wait
      // for its keep-alive timeout; at the end of the grace cut whatever is left.
      const reap = setInterval(() => server?.closeIdleConnections(), 100);
      const cut = setTimeout(() => server?.closeAllConnections(), closeGraceMs);
      try {
        await app.close();
      } finally {
        clearInterval(reap);
        clearTimeout(cut);
      }
    },
  };
}
