/** `feed-service serve`: opens the database and serves SOAP, WSDL, /click and /healthz until stopped. */

import { isClusterWorker, runServeCluster, runsIngestInCluster } from "../cluster/serve-cluster.js";
import { FeedServiceError } from "../errors.js";
import { normalisePublicUrl } from "../http/base-url.js";
import { createFeedServer } from "../http/feed-server.js";
import { startBackgroundIngest } from "../ingest/background-ingest.js";
import { readDetectableLanguages, setDetectableLanguages } from "../ingest/detectable-languages.js";
import { createFetchAgent } from "../ingest/fetch-feed.js";
import { defaultMetricsAllow, parseMetricsAllow } from "../metrics/metrics-access.js";
import { createOperationRunner } from "../operations/operation-runner.js";
import { parseSearchQuery } from "../search/parse-search-query.js";
import { readSiteName } from "../site-name.js";
import { megabytes } from "../store/cache-warm.js";
import { defaultQueryTimeoutMs } from "../store/query-limits.js";
import type { Store } from "../store/store.js";
import { WebSubSubscriber } from "../websub/websub-subscriber.js";
import type { Command, CommandContext } from "./command.js";
import { readIntegerOption, readSecondsOption, readStringOption } from "./command-line.js";
import { databaseLocation, databaseOption, openDatabase } from "./database-option.js";
import { parseOptionsOnly } from "./options-only-command-line.js";

const usage = `usage: feed-service serve [options]

Serves the web pages (/), the SOAP endpoint (/webservices/FeedAggregator and
/webservices/mxna2.cfc) and its WSDL (?wsdl), the JSON API (/api/v1, OpenAPI at
/api/v1/openapi.json, docs at /api/docs), output feeds (/feeds/recent.rss|atom|json and more),
/click/<postId>, /healthz and /metrics.

options (each also as an environment variable):
  --port <n>             port to listen on (default 8080)           FEED_SERVICE_PORT
  --host <address>       address to bind (default 0.0.0.0)          FEED_SERVICE_HOST
  --database <location>  path, sqlite:<path> or postgres://…        FEED_SERVICE_DATABASE
                         (default ./data/feeds.db)
  --public-url <url>     base URL clients reach the service at, for FEED_SERVICE_PUBLIC_URL
                         soap:address and tracking links (default: from each request's Host);
                         with it, feeds that name a WebSub hub are subscribed to, with
                         callbacks under <url>/websub/
  --site-name <name>     the site's name in feed and page titles and FEED_SERVICE_SITE_NAME
                         the OpenSearch description (default "Feed aggregator")
  --detect-languages <list>  languages ingest may guess for posts FEED_SERVICE_DETECT_LANGUAGES
                         that declare none, comma-separated (en,de,fr), or none; other
                         guesses, short texts and unsure ones are und (default: the 30
                         languages most used on the web)
  --no-ingest            do not refresh feeds while serving         FEED_SERVICE_NO_INGEST=1
  --no-warm              listen at once, without first reading the  FEED_SERVICE_NO_WARM=1
                         database into memory (by default a SQLite file that fits in half the
                         free memory is read through, and PostgreSQL's tables and indexes are
                         loaded into its shared buffers with pg_prewarm) and answering a
                         few read-only requests over a loopback socket of its own (SOAP,
                         JSON, the home page)
  --workers <n>          processes serving the one port (default 1) FEED_SERVICE_WORKERS
  --read-database <loc>  a postgres:// read replica that serves the FEED_SERVICE_READ_DATABASE
                         operations' reads (with a postgres:// --database only)
  --query-timeout <s>    a query still running after this many      FEED_SERVICE_QUERY_TIMEOUT
                         seconds is stopped and its call answered with a fault (default 10;
                         fractions allowed)
  --heavy-queries <n>    heavy reads (searches, rankings, deep     FEED_SERVICE_HEAVY_QUERIES
                         pages) run at once per process: SQLite query threads (default one
                         per core) or PostgreSQL connections (default one fewer than the cores,
                         at least 1; at most 9); divided among --workers by default
  --metrics-allow <list> addresses and CIDR blocks that may read  FEED_SERVICE_METRICS_ALLOW
                         /metrics, comma-separated (default 127.0.0.0/8,::1/128); others get 404
  --allow-private-fetch  let ingest and the addresses visitors     FEED_SERVICE_ALLOW_PRIVATE_FETCH=1
                         suggest (/suggest) reach loopback, private and link-local hosts
                         (refused by default: such a feed fails with ADDRESS_REFUSED)
  --help                 show this help`;

const options = {
  ...databaseOption,
  port: { type: "string", env: true },
  host: { type: "string", env: true },
  "public-url": { type: "string", env: true },
  "site-name": { type: "string", env: true },
  "detect-languages": { type: "string", env: true },
  "no-ingest": { type: "boolean", env: true },
  "no-warm": { type: "boolean", env: true },
  workers: { type: "string", env: true },
  "read-database": { type: "string", env: true },
  "query-timeout": { type: "string", env: true },
  "heavy-queries": { type: "string", env: true },
  "metrics-allow": { type: "string", env: true },
  "allow-private-fetch": { type: "boolean", env: true },
} as const;

/** The longest query deadline `--query-timeout` accepts: an hour. */
const maxQueryTimeoutSeconds = 3600;

export interface ServeSettings {
  readonly port: number;
  readonly host: string;
  readonly publicUrl?: string;
  /** The site's name in feeds, pages and the OpenSearch description. */
  readonly siteName?: string;
  readonly ingest: boolean;
  /** Read the database into memory and prime the request path before listening; default false. */
  readonly warm?: boolean;
  /** Who may read /metrics (see metrics-access.ts); default loopback only. */
  readonly metricsAllow?: string;
  /** Suggested addresses may reach private hosts (spec §5.5); default false. */
  readonly allowPrivateFetch?: boolean;
  /** A line printed after the addresses (start-demo says who can connect). */
  readonly note?: string;
}

/** How often a long warm-up says how far it got. */
const warmProgressEveryMs = 2000;

/** Thrown from the progress callback to end a warm-up when serve is asked to stop. */
class WarmStopped extends Error {}

/**
 * Reads the database into memory before the service listens, so that its first calls do not wait
 * on the disk; says how much and how long, with a progress line every 2 s. A failure only costs
 * the warm-up: the service still starts.
 */
async function warmStore(store: Store, context: CommandContext, stopping: () => boolean): Promise<void> {
  const started = performance.now();
  let shown = started;
  try {
    const report = await store.warmCache!((done, total) => {
      if (stopping()) throw new WarmStopped("stopped");
      const now = performance.now();
      if (now - shown < warmProgressEveryMs) return;
      shown = now;
      context.output.out(`feed-service: warming the database: ${megabytes(done)} of ${megabytes(total)}\n`);
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const prefetched = report.prefetchedBytes ? ` (and ${megabytes(report.prefetchedBytes)} prefetched)` : "";
    const connections = report.connections
      ? `, then ${report.connections.count} connections in ${(report.connections.milliseconds / 1000).toFixed(1)} s`
      : "";
    const read =
      report.bytes > 0 || !report.skipped
        ? `read ${megabytes(report.bytes)}${prefetched} of the database into memory in ${seconds} s${connections}`
        : "did not warm the database";
    context.output.out(
      `feed-service: ${read}${report.skipped ? `: ${report.skipped}` : ""} (--no-warm skips this)\n`,
    );
  } catch (error) {
    if (error instanceof WarmStopped) return;
    const reason = error instanceof Error ? error.message : String(error);
    context.output.err(`feed-service: could not warm the database (${reason}); serving anyway\n`);
  }
}

/** Serves `store` until the stop signal; closes the server and the store before resolving. */
export async function serveStore(
  store: Store,
  settings: ServeSettings,
  context: CommandContext,
): Promise<number> {
  // Listen for SIGINT/SIGTERM before announcing the address, so a stop sent right away is honoured.
  const stopped = context.stopSignal;
  const runner = createOperationRunner({ store, parseSearch: parseSearchQuery });
  const service = createFeedServer({
    store,
    runner,
    publicUrl: settings.publicUrl,
    metricsAllow: settings.metricsAllow,
    siteName: settings.siteName,
    allowPrivateFetch: settings.allowPrivateFetch,
  });
  // A stop during the warm-up ends it at the next chunk (SQLite) or table (PostgreSQL); one that
  // came while the database opened is seen here too, after a turn of the event loop.
  let stopping = false;
  void stopped.then(() => {
    stopping = true;
  });
  await Promise.resolve();
  if (settings.warm && !stopping) {
    if (store.warmCache) await warmStore(store, context, () => stopping);
    if (!stopping) await service.prime();
  }
  if (stopping) {
    context.output.out(`feed-service: ${await stopped}, stopping before listening\n`);
    await service.close();
    await store.close();
    return 0;
  }
  let address: Awaited<ReturnType<typeof service.listen>>;
  try {
    address = await service.listen(settings.port, settings.host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    context.output.err(
      `feed-service: cannot listen on ${settings.host}:${settings.port}${code ? ` (${code})` : ""}\n`,
    );
    // The store's query threads and connections would otherwise keep the process alive.
    await service.close();
    await store.close();
    return 1;
  }
  const shownHost = ["0.0.0.0", "::", ""].includes(settings.host)
    ? "localhost"
    : address.family === "IPv6"
      ? `[${address.address}]`
      : address.address;
  const base = (settings.publicUrl ?? `http://${shownHost}:${address.port}`).replace(/\/+$/, "");
  context.output.out(
    [
      // The reading pages first: what a person who just ran `npm start` wants to open.
      `Open ${base}/ in a browser to read the feeds.`,
      `feed-service listening on ${address.address}:${address.port}`,
      `  WSDL:    ${base}/webservices/FeedAggregator?wsdl`,
      `  SOAP:    ${base}/webservices/FeedAggregator (alias /webservices/mxna2.cfc)`,
      `  JSON:    ${base}/api/v1/posts (OpenAPI ${base}/api/v1/openapi.json, docs ${base}/api/docs)`,
      `  feeds:   ${base}/feeds/recent.rss (also .atom, .json)`,
      `  clicks:  ${base}/click/<postId>`,
      `  health:  ${base}/healthz`,
      `  metrics: ${base}/metrics (from ${settings.metricsAllow ?? defaultMetricsAllow})`,
      settings.publicUrl ? `  websub:  ${base}/websub/<callback> (hub callbacks)` : "",
      settings.note ?? "",
    ]
      .filter((line) => line !== "")
      .map((line) => `${line}\n`)
      .join(""),
  );
  // WebSub needs callbacks the hubs can reach (the public URL); it subscribes where ingest runs.
  const webSubFailed = (error: unknown) =>
    context.output.err(
      `feed-service: WebSub round failed: ${error instanceof FeedServiceError ? error.message : "unexpected error"}\n`,
    );
  // Hub URLs come from feed documents: their requests keep ingest's address rule (spec §5.5).
  const hubAgent =
    settings.ingest && settings.publicUrl && settings.allowPrivateFetch !== true
      ? createFetchAgent({ publicAddressesOnly: true })
      : undefined;
  const subscriber =
    settings.ingest && settings.publicUrl
      ? new WebSubSubscriber({
          subscriptions: store.websub,
          publicUrl: normalisePublicUrl(settings.publicUrl),
          onError: webSubFailed,
          dispatcher: hubAgent,
        })
      : null;
  const scheduler = settings.ingest
    ? startBackgroundIngest(
        store,
        context.output,
        (pass) => {
          service.metrics.ingestPass(pass);
          // A pass may have found new hubs: subscribe now rather than at the next tick.
          if (pass.updated > 0) subscriber?.runOnce().catch(webSubFailed);
        },
        { publicAddressesOnly: settings.allowPrivateFetch !== true },
      )
    : null;
  subscriber?.start();
  const signal = await stopped;
  context.output.out(`feed-service: ${signal}, stopping\n`);
  // New requests are refused at once while the background work winds down beside them. The
  // scheduler before the subscriber: a pass that ends while stopping may still start a WebSub
  // round. A pass or round still fetching after the grace is left behind: its feeds' claims
  // expire and the next pass (of this or another process) fetches them again.
  const background = async () => {
    if (scheduler && !(await settlesWithin(scheduler.stop(), backgroundStopGraceMs))) {
      context.output.err("feed-service: an ingest pass was still fetching; left for the next pass\n");
    }
    if (subscriber && !(await settlesWithin(subscriber.stop(), backgroundStopGraceMs))) {
      context.output.err("feed-service: a WebSub round was still running; left for the next start\n");
    }
  };
  await Promise.all([service.close(), background()]);
  await hubAgent?.destroy().catch(() => {});
  await store.close();
  return 0;
}

/** How long a stop waits for a background ingest pass or WebSub round to end. */
const backgroundStopGraceMs = 3000;

/** Whether `work` settles (either way) within `ms`. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export const serveCommand: Command = {
  name: "serve",
  summary: "serve the web pages, SOAP endpoint and WSDL, JSON API, output feeds and /metrics",
  usage,
  async run(argv, context) {
    const values = parseOptionsOnly("serve", usage, argv, options, context);
    if (!values) return 0;
    const workers = readIntegerOption(values, "workers", 1, 1, 1024);
    const queryTimeoutMs = readSecondsOption(
      values,
      "query-timeout",
      defaultQueryTimeoutMs,
      maxQueryTimeoutSeconds,
    );
    const siteName = readStringOption(values, "site-name");
    const detect = readStringOption(values, "detect-languages");
    if (detect !== undefined) setDetectableLanguages(readDetectableLanguages(detect));
    const settings: ServeSettings = {
      port: readIntegerOption(values, "port", 8080, 0, 65535),
      host: readStringOption(values, "host") ?? "0.0.0.0",
      publicUrl: readStringOption(values, "public-url"),
      siteName: siteName === undefined ? undefined : readSiteName(siteName, "--site-name"),
      // In a cluster (--workers N) one worker runs the background ingest, not every one.
      ingest: values["no-ingest"] !== true && runsIngestInCluster(),
      warm: values["no-warm"] !== true,
      metricsAllow: readStringOption(values, "metrics-allow"),
      allowPrivateFetch: values["allow-private-fetch"] === true,
    };
    // Checked before the database opens, so a typo is a usage error (exit 2) that names the entry.
    if (settings.metricsAllow !== undefined) parseMetricsAllow(settings.metricsAllow);
    if (settings.publicUrl !== undefined) normalisePublicUrl(settings.publicUrl);
    if (workers > 1 && !isClusterWorker()) {
      // The primary only supervises: each worker opens the database and listens itself.
      const { stopSignal, env, output } = context;
      return runServeCluster({ workers, argv, env, output, stopSignal });
    }
    // SIGINT/SIGTERM from here on stop serve cleanly, even while the database opens.
    void context.stopSignal;
    const store = await openDatabase(
      databaseLocation(values),
      { mode: "create", output: context.output },
      {
        readLocation: readStringOption(values, "read-database"),
        // The processes of a cluster share the cores: each gets its part of the query threads.
        queryLimits: {
          queryTimeoutMs,
          processes: workers,
          ...(values["heavy-queries"] === undefined
            ? {}
            : { threads: readIntegerOption(values, "heavy-queries", 1, 1, 64) }),
        },
      },
    );
    return serveStore(store, settings, context);
  },
};
