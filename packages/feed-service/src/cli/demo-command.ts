/** `feed-service demo`: loads the deterministic demo corpus into an empty database. */

import { type DemoSummary, loadDemoData } from "../demo/load-demo-data.js";
import { badArgument } from "../errors.js";
import { parseIsoInstant } from "../operations/argument-readers.js";
import type { Command } from "./command.js";
import { readIntegerOption } from "./command-line.js";
import { databaseLocation, databaseOption, openDatabase } from "./database-option.js";
import { parseOptionsOnly } from "./options-only-command-line.js";

const usage = `usage: feed-service demo [--database <location>] [--posts N] [--now <ISO 8601>] [--json]

Writes the demo corpus (45 feeds in 10 languages and 6 categories, posts spread over the
90 days before --now, clicks and smart categories) into an empty database, through the same store
API that ingest uses. The same --posts and --now always give the same corpus.

options:
  --database <location>  path, sqlite:<path> (default ./data/feeds.db; env FEED_SERVICE_DATABASE)
  --posts <n>            number of posts (default 3000, at most 5000000)
  --now <instant>        the instant the corpus ends at (default: the current time)
  --json                 print the summary as JSON`;

const options = {
  ...databaseOption,
  posts: { type: "string" },
  now: { type: "string" },
  json: { type: "boolean" },
} as const;

export function describeDemo(summary: DemoSummary): string {
  return `${summary.posts} posts in ${summary.feeds} feeds, ${summary.categories} categories, ${summary.languages} languages, ${summary.clicks} clicks, ${summary.smartCategories} smart categories`;
}

/** Reads `--now`: an ISO 8601 instant (no zone = UTC). */
export function readNowOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const at = parseIsoInstant(text.trim());
  if (at === undefined)
    throw badArgument(
      `--now must be an ISO 8601 instant such as 2026-01-15T12:00:00Z; got ${JSON.stringify(text)}.`,
    );
  return at;
}

export const demoCommand: Command = {
  name: "demo",
  summary: "load the deterministic demo corpus into an empty database",
  usage,
  async run(argv, context) {
    const values = parseOptionsOnly("demo", usage, argv, options, context);
    if (!values) return 0;
    const posts = readIntegerOption(values, "posts", 3000, 0, 5_000_000);
    const now = readNowOption(typeof values.now === "string" ? values.now : undefined);
    const location = databaseLocation(values);
    const store = await openDatabase(location, { mode: "create", output: context.output });
    try {
      const summary = await loadDemoData(store, { posts, now });
      context.output.out(
        values.json
          ? `${JSON.stringify(summary, null, 2)}\n`
          : `loaded ${describeDemo(summary)} into ${location}\n`,
      );
      return 0;
    } finally {
      await store.close();
    }
  },
};
