/**
 * `feed-service start-demo` (what the root `npm start` runs): creates ./data/feeds.db with the demo
 * corpus on first run (relative to the current folder), then serves it on 127.0.0.1 port 8080 (or
 * --host/FEED_SERVICE_HOST, --port/FEED_SERVICE_PORT), printing the WSDL, click and health URLs.
 */
import { existsSync, renameSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { loadDemoData } from "../demo/load-demo-data.js";
import { searchHistoryPath } from "../store/sqlite/sqlite-search-history.js";
import type { Command } from "./command.js";
import { readIntegerOption, readStringOption } from "./command-line.js";
import { defaultDatabase, openDatabase } from "./database-option.js";
import { describeDemo } from "./demo-command.js";
import { parseOptionsOnly } from "./options-only-command-line.js";
import { serveStore } from "./serve-command.js";

const usage = `usage: feed-service start-demo [--port 8080] [--host 127.0.0.1] [--public-url <url>]

Creates ${defaultDatabase} with the demo corpus when it does not exist yet, then serves it.
It listens on 127.0.0.1 (this machine only) unless --host says otherwise: --host 0.0.0.0
opens it to the network. Options also as FEED_SERVICE_PORT, FEED_SERVICE_HOST,
FEED_SERVICE_PUBLIC_URL. Stop it with Ctrl-C (SIGINT) or SIGTERM.`;

/** The demo is for trying the service out: nobody else on the network should reach it unasked. */
const demoHost = "127.0.0.1";

const options = {
  port: { type: "string", env: true },
  host: { type: "string", env: true },
  "public-url": { type: "string", env: true },
} as const;

export const startDemoCommand: Command = {
  name: "start-demo",
  summary: "create ./data/feeds.db with demo data on first run, then serve it (npm start)",
  usage,
  async run(argv, context) {
    const values = parseOptionsOnly("start-demo", usage, argv, options, context);
    if (!values) return 0;
    const settings = {
      port: readIntegerOption(values, "port", 8080, 0, 65535),
      host: readStringOption(values, "host") ?? demoHost,
      publicUrl: readStringOption(values, "public-url"),
      ingest: false,
    };
    const note = ["127.0.0.1", "::1", "localhost"].includes(settings.host)
      ? "Only this machine can connect (--host 0.0.0.0 or FEED_SERVICE_HOST=0.0.0.0 opens it to the network); --port or FEED_SERVICE_PORT changes the port. Ctrl-C stops it."
      : "--port or FEED_SERVICE_PORT changes the port. Ctrl-C stops it.";
    const path = resolve(defaultDatabase);
    if (!existsSync(path)) {
      // Built under another name and renamed when complete, so that an interrupted first run
      // leaves no half-filled database for the next run to mistake for a finished one.
      const building = `${path}.building`;
      // The search history's file goes with the database (sqlite-search-history.ts).
      for (const file of [building, searchHistoryPath(building)]) {
        for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
      }
      context.output.out(`creating ${defaultDatabase} with demo data...\n`);
      // Said in start-demo's own words above.
      const fresh = await openDatabase(building, { mode: "create" });
      try {
        context.output.out(`loaded ${describeDemo(await loadDemoData(fresh, {}))}\n`);
      } finally {
        await fresh.close();
      }
      renameSync(searchHistoryPath(building), searchHistoryPath(path));
      renameSync(building, path);
    } else {
      context.output.out(`using the existing ${defaultDatabase}\n`);
    }
    return serveStore(
      await openDatabase(path, { mode: "read" }, { queryLimits: {} }),
      { ...settings, note },
      context,
    );
  },
};
