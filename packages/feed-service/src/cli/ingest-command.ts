/**
 * `feed-service ingest [--database …] [--all] [--json]`: one pass over the due feeds (every feed
 * with --all), a progress bar on a terminal, a summary at the end. Every feed is tried whatever
 * the others do; the exit code tells a script whether any failed (1, each failing feed named in
 * the summary and recorded on the feed) or none did (0), as a cron job or CI step wants to know.
 */
import { formatIngestSummary } from "../ingest/background-ingest.js";
import { readDetectableLanguages, setDetectableLanguages } from "../ingest/detectable-languages.js";
import { type IngestSummary, runIngestPass } from "../ingest/ingest-pass.js";
import { mergeSearchIndex, type SearchIndexMerge } from "../ingest/search-index-upkeep.js";
import type { Command } from "./command.js";
import { readIntegerOption, readStringOption } from "./command-line.js";
import { databaseLocation, databaseOption, openDatabase } from "./database-option.js";
import { parseOptionsOnly } from "./options-only-command-line.js";
import { processOutput } from "./output.js";

const usage = `usage: feed-service ingest [--database <location>] [--all] [--json]

Fetches the feeds that are due (every feed with --all) and stores their new and changed posts.
Prints one line of counts, then one line per feed that failed (its id, URL, stage, failure code
and message); the same failures show in feeds list. Then merges the search index (SQLite) by segment
size, so that searches read few pieces of it, in short steps that leave it readable and writable
throughout.

exit codes: 0 every feed was refreshed (or none was due), 1 at least one feed failed (the others
are still stored), 2 usage.

options:
  --all                  refresh every feed, due or not
  --concurrency <n>      fetches at once (default 16)            FEED_SERVICE_CONCURRENCY
  --per-host <n>         fetches at once to one host (default 2) FEED_SERVICE_PER_HOST
  --detect-languages <list>  languages that may be guessed for    FEED_SERVICE_DETECT_LANGUAGES
                         posts that declare none, comma-separated (en,de,fr), or none; other
                         guesses, short texts and unsure ones are und (default: the 30
                         languages most used on the web)
  --allow-private-fetch  also fetch feeds on loopback, private and  FEED_SERVICE_ALLOW_PRIVATE_FETCH=1
                         link-local addresses (refused by default: ADDRESS_REFUSED)
  --database <location>  path, sqlite:<path> or postgres://…     FEED_SERVICE_DATABASE
  --json                 print the summary as JSON
  --help                 show this help`;

const options = {
  ...databaseOption,
  all: { type: "boolean" },
  json: { type: "boolean" },
  concurrency: { type: "string", env: true },
  "per-host": { type: "string", env: true },
  "detect-languages": { type: "string", env: true },
  "allow-private-fetch": { type: "boolean", env: true },
} as const;

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
    const detect = readStringOption(values, "detect-languages");
    if (detect !== undefined) setDetectableLanguages(readDetectableLanguages(detect));
    const tty = context.output === processOutput && process.stderr.isTTY === true && values.json !== true;
    const store = await openDatabase(databaseLocation(values), { mode: "read" });
    let summary: IngestSummary;
    let merge: SearchIndexMerge;
    try {
      summary = await runIngestPass(store, {
        all: values.all === true,
        overall,
        perHost,
        fetch: { publicAddressesOnly: values["allow-private-fetch"] !== true },
        onProgress: tty ? (done, total) => context.output.err(progressBar(done, total)) : undefined,
      });
      if (tty && summary.feeds > 0) context.output.err("\n");
      merge = await mergeSearchIndex(store, {
        onStep: tty ? (steps) => context.output.err(`\rmerging the search index: step ${steps}`) : undefined,
      });
      if (tty && merge.steps > 0) context.output.err("\n");
    } finally {
      await store.close();
    }
    context.output.out(
      values.json
        ? `${JSON.stringify({ ...summary, searchIndexMerge: merge }, null, 2)}\n`
        : formatIngestSummary(summary) +
            (merge.steps > 1
              ? `search index: merged in ${merge.steps} steps, ${(merge.durationMs / 1000).toFixed(1)} s\n`
              : ""),
    );
    return summary.failed > 0 ? 1 : 0;
  },
};
