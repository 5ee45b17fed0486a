/**
 * The figures of `GET /metrics` (spec §5.4), in a prom-client registry of their own (never the
 * global one, so that two servers in one process, as in the tests, count apart): HTTP requests
 * and durations by route and status, SOAP calls by operation and fault, query durations by
 * operation, feed refreshes by result, posts ingested, broken feeds, database connections, answer-cache hits and misses,
 * and the process's own figures (CPU, memory, event-loop lag, handles).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

export type SoapFaultKind = "none" | "client" | "server";
export type CacheResult = "hit" | "miss" | "skip";

/** What one ingest pass did, as far as the counters need it (see ingest-pass.ts IngestSummary). */
export interface IngestPassCounts {
  readonly updated: number;
  readonly notModified: number;
  readonly failed: number;
  readonly deferred: number;
  /** Refreshes stopped because another worker took the feed (its claim's lease had run out). */
  readonly claimLost: number;
  readonly postsInserted: number;
}

export interface ServiceMetricsOptions {
  /** Counts feeds whose last refresh failed, read at scrape time. */
  readonly brokenFeeds?: () => Promise<number>;
  /** The store's database connections (open, busy, waiting), read at scrape time. */
  readonly connections?: () => { open: number; busy: number; waiting: number };
}

export interface ServiceMetrics {
  readonly registry: Registry;
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  soapCall(operation: string, fault: SoapFaultKind): void;
  query(operation: string, outcome: string, seconds: number): void;
  answerCache(result: CacheResult): void;
  ingestPass(counts: IngestPassCounts): void;
  /** The registry in the Prometheus text format, and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

const prefix = "feed_service_";

/**
 * @example
 * const metrics = createServiceMetrics({ brokenFeeds: async () => 0 });
 * metrics.httpRequest("/api/v1/posts", "GET", 200, 0.004);
 * const { body } = await metrics.scrape();
 */
export function createServiceMetrics(options: ServiceMetricsOptions = {}): ServiceMetrics {
  const registry = new Registry();
  // The process's figures under their standard names (process_cpu_seconds_total,
  // nodejs_eventloop_lag_seconds, ...), which the usual dashboards and alerts query; only the
  // service's own figures carry its prefix.
  collectDefaultMetrics({ register: registry });
  const httpRequests = new Counter({
    name: `${prefix}http_requests_total`,
    help: "HTTP requests answered, by route pattern, method and status.",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: "Time from the request's arrival to the end of its answer, by route pattern, method and status.",
    labelNames: ["route", "method", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const soapCalls = new Counter({
    name: `${prefix}soap_calls_total`,
    help: "SOAP calls, by operation and fault (none, client: soapenv:Client, server: Server.userException).",
    labelNames: ["operation", "fault"] as const,
    registers: [registry],
  });
  const queryDuration = new Histogram({
    name: `${prefix}query_duration_seconds`,
    help: "Time an operation took to answer its records (validation and queries), by operation and outcome.",
    labelNames: ["operation", "outcome"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 10],
    registers: [registry],
  });
  const cacheLookups = new Counter({
    name: `${prefix}answer_cache_lookups_total`,
    help: "Answer-cache lookups of pure operations: hit, miss, or skip (a request too large to key).",
    labelNames: ["result"] as const,
    registers: [registry],
  });
  const refreshes = new Counter({
    name: `${prefix}feed_refreshes_total`,
    help: "Feed refreshes by the background ingest, by result (updated, not_modified, failed, deferred, claim_lost).",
    labelNames: ["result"] as const,
    registers: [registry],
  });
  const postsIngested = new Counter({
    name: `${prefix}posts_ingested_total`,
    help: "New posts stored by the background ingest.",
    registers: [registry],
  });
  const brokenFeeds = options.brokenFeeds;
  if (brokenFeeds) {
    new Gauge({
      name: `${prefix}broken_feeds`,
      help: "Feeds whose last refresh failed (read from the database at scrape time).",
      registers: [registry],
      async collect() {
        this.set(await brokenFeeds());
      },
    });
  }
  const connections = options.connections;
  if (connections) {
    new Gauge({
      name: `${prefix}database_connections`,
      help: "Database connections of the store: open, busy (running a query), and calls waiting for one.",
      labelNames: ["state"] as const,
      registers: [registry],
      collect() {
        const now = connections();
        this.set({ state: "open" }, now.open);
        this.set({ state: "busy" }, now.busy);
        this.set({ state: "waiting" }, now.waiting);
      },
    });
  }
  // Every label value is known up front, so that a scrape shows zeros rather than missing series.
  for (const result of ["hit", "miss", "skip"]) cacheLookups.inc({ result }, 0);
  for (const result of ["updated", "not_modified", "failed", "deferred", "claim_lost"])
    refreshes.inc({ result }, 0);

  // The labelled children, kept by their label values: prom-client would otherwise hash the label
  // object on every call, and these run on every request of the hot SOAP path.
  type Child<M extends { labels: (...args: never[]) => unknown }> = ReturnType<M["labels"]>;
  const requestSeries = new Map<
    string,
    { count: Child<typeof httpRequests>; duration: Child<typeof httpDuration> }
  >();
  const soapSeries = new Map<string, Child<typeof soapCalls>>();
  const cacheSeries = new Map<CacheResult, Child<typeof cacheLookups>>();

  return {
    registry,
    httpRequest(route, method, status, seconds) {
      const key = `${route} ${method} ${status}`;
      let series = requestSeries.get(key);
      if (series === undefined) {
        const labels = { route, method, status: String(status) };
        series = { count: httpRequests.labels(labels), duration: httpDuration.labels(labels) };
        requestSeries.set(key, series);
      }
      series.count.inc();
      series.duration.observe(seconds);
    },
    soapCall(operation, fault) {
      const key = `${operation} ${fault}`;
      let series = soapSeries.get(key);
      if (series === undefined) {
        series = soapCalls.labels({ operation, fault });
        soapSeries.set(key, series);
      }
      series.inc();
    },
    query: (operation, outcome, seconds) => queryDuration.observe({ operation, outcome }, seconds),
    answerCache(result) {
      let series = cacheSeries.get(result);
      if (series === undefined) {
        series = cacheLookups.labels({ result });
        cacheSeries.set(result, series);
      }
      series.inc();
    },
    ingestPass(counts) {
      refreshes.inc({ result: "updated" }, counts.updated);
      refreshes.inc({ result: "not_modified" }, counts.notModified);
      refreshes.inc({ result: "failed" }, counts.failed);
      refreshes.inc({ result: "deferred" }, counts.deferred);
      refreshes.inc({ result: "claim_lost" }, counts.claimLost);
      postsIngested.inc(counts.postsInserted);
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
