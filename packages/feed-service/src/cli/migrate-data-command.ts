/**
 * `feed-service migrate-data --from <location> --to <location> [--force]`: copies a whole database
 * between backends (spec §6: the same location forms as --database). Progress goes to stderr, one
 * line per table and every 10% of the posts, then where the time went, a line a step; the summary
 * (rows per table) to stdout.
 */
import { badArgument } from "../errors.js";
import { migrateData } from "../migrate/migrate-data.js";
import type { Command } from "./command.js";
import { readIntegerOption, readStringOption } from "./command-line.js";
import { requireExistingDatabase } from "./database-option.js";
import { parseOptionsOnly } from "./options-only-command-line.js";
import { formatTable } from "./output.js";

const usage = `usage: feed-service migrate-data --from <location> --to <location> [--force] [--json]

Copies every table of a feed-service database to another one, ids included; each side's search
index is rebuilt from the posts. A location is a SQLite path, sqlite:<path> or a postgres:// URL.

options:
  --from <location>   the database to copy (left unchanged; must exist)
  --to <location>     the database to fill (created and migrated when new)
  --force             replace the data a non-empty target holds (refused otherwise)
  --batch <n>         rows per batch (default 2000)
  --json              print the summary as JSON
  --help              show this help`;

const options = {
  from: { type: "string" },
  to: { type: "string" },
  force: { type: "boolean" },
  batch: { type: "string" },
  json: { type: "boolean" },
} as const;

export const migrateDataCommand: Command = {
  name: "migrate-data",
  summary: "copy a whole database between SQLite and PostgreSQL",
  usage,
  async run(argv, context) {
    const values = parseOptionsOnly("migrate-data", usage, argv, options, context);
    if (!values) return 0;
    const from = readStringOption(values, "from")?.trim();
    const to = readStringOption(values, "to")?.trim();
    if (!from || !to) {
      throw badArgument(
        "migrate-data needs both --from and --to (a SQLite path, sqlite:<path> or a postgres:// URL).",
      );
    }
    // Copying from a path that holds nothing would create an empty database there and copy it.
    requireExistingDatabase(from, "--from");
    const batchSize = readIntegerOption(values, "batch", 2000, 1, 10_000);
    let shown = -1;
    const summary = await migrateData({
      from,
      to,
      force: values.force === true,
      batchSize,
      onProgress: (table, copied, total) => {
        const tenth = total === 0 ? 10 : Math.floor((copied * 10) / total);
        if (copied === 0) shown = -1;
        if (tenth === shown && copied !== total) return;
        shown = tenth;
        context.output.err(`migrate-data: ${table} ${copied}/${total}\n`);
      },
      onStep: (step, ms) => context.output.err(`migrate-data: ${step}: ${(ms / 1000).toFixed(1)} s\n`),
    });
    if (values.json) {
      context.output.out(`${JSON.stringify(summary, null, 2)}\n`);
    } else {
      context.output.out(formatTable(summary.tables, ["table", "rows"]));
      context.output.out(`copied in ${(summary.durationMs / 1000).toFixed(1)} s\n`);
    }
    return 0;
  },
};
