/**
 * `feed-service ingest [--database …] [--all] [--json]`: one pass over the due feeds (every feed
 * with --all), a progress bar on a terminal, a summary at the end. Exit 1 when the pass failed as
 * a whole (there were feeds and not one could be refreshed); single failing feeds are reported
 * and recorded on the feed, and the pass still succeeds.
 */
import { FeedServiceError } from "../errors.js";
import { type IngestSummary, runIngestPass } from "../ingest/ingest-pass.js";
import { IngestScheduler } from "../ingest/ingest-scheduler.js";
import type { Store } from "../store/store.js";
import type { Command } from "./command.js";
import { readIntegerOption } from "./command-line.js";
import { databaseLocation, databaseOption, openDatabase } from "./database-option.js";
import { parseOptionsOnly } from "./options-only-command-line.js";
import { type Output, processOutput } from "./output.js";

const usage = `usage: feed-service ingest [--database <location>] [--all] [--json]

Fetches the feeds that are due (every feed with --all) and stores their new and changed posts.

options:
  --all                  refresh every feed, due or not
  --concurrency <n>      fetches at once (default 16)            FEED_SERVICE_CONCURRENCY
  --per-host <n>         fetches at once to one host (default 2) FEED_SERVICE_PER_HOST
  --database <location>  path, sqlite:<path> or postgres://…     FEED_SERVICE_DATABASE
  --json                 print the summary as JSON
  --help                 show this help`;

const options = {
  ...databaseOption,
  all: { type: "boolean" },
  json: { type: "boolean" },
  concurrency: { type: "string", env: true },
  "per-host": { type: "string", env: true },
} as const;

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The summary for people: one line of counts, then one line per failing feed. */
export function formatSummary(s: IngestSummary): string {
  const lines = [
    `ingest: ${s.feeds} feed${s.feeds === 1 ? "" : "s"}: ${s.updated} updated, ${s.notModified} not modified, ` +
      `${s.failed} failed, ${s.deferred} deferred; ${s.postsInserted} new posts, ${s.postsUpdated} updated posts ` +
      `in ${seconds(s.durationMs)}`,
  ];
  for (const f of s.failures) lines.push(`  feed ${f.feedId} ${f.feedUrl}: ${f.error}`);
  return `${lines.join("\n")}\n`;
}

function progressBar(done: number, total: number): string {
  const width = 30;
  const filled = Math.round((done / Math.max(total, 1)) * width);
  return `\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} feeds`;
}

export const ingestCommand: Command = {
  name: "ingest",
  summary: "refresh the due feeds once (--all: every feed)",
  usage,
  async run(argv, context) {
    const values = parseOptionsOnly("ingest", usage, argv, options, context);
    if (!values) return 0;
    const overall = readIntegerOption(values, "concurrency", 16, 1, 256);
    const perHost = readIntegerOption(values, "per-host", 2, 1, 64);
    const tty = context.output === processOutput && process.stderr.isTTY === true && values.json !== true;
    const store = await openDatabase(databaseLocation(values));
    let summary: IngestSummary;
    try {
      summary = await runIngestPass(store, {
        all: values.all === true,
        overall,
        perHost,
        onProgress: tty ? (done, total) => context.output.err(progressBar(done, total)) : undefined,
      });
    } finally {
      await store.close();
    }
    if (tty && summary.feeds > 0) context.output.err("\n");
    context.output.out(values.json ? `${JSON.stringify(summary, null, 2)}\n` : formatSummary(summary));
    const failedAsWhole = summary.feeds > 0 && summary.failed === summary.feeds;
    return failedAsWhole ? 1 : 0;
  },
};

/**
 * The scheduler `serve` runs unless --no-ingest: a pass over due feeds every minute, a one-line
 * log of each pass that did something.
 *
 * @example
 * const scheduler = startBackgroundIngest(store, context.output);
 * // ... on shutdown:
 * await scheduler.stop();
 */
export function startBackgroundIngest(store: Store, output: Output): IngestScheduler {
  const scheduler = new IngestScheduler(store, {
    onPass: (s) => {
      if (s.feeds > 0) output.out(formatSummary(s));
    },
    onError: (error) =>
      output.err(
        `feed-service: ingest pass failed: ${error instanceof FeedServiceError ? error.message : "unexpected error"}\n`,
      ),
  });
  scheduler.start();
  return scheduler;
}
