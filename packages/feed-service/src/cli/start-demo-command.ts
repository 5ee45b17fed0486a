/**
 * `feed-service start-demo` (what the root `npm start` runs): creates ./data/feeds.db with the demo
 * corpus on first run (relative to the current folder), then serves it on port 8080 (or
 * FEED_SERVICE_PORT), printing the WSDL, click and health URLs.
 */
import { existsSync, renameSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { loadDemoData } from "../demo/load-demo-data.js";
import type { Command } from "./command.js";
import { readIntegerOption, readStringOption } from "./command-line.js";
import { defaultDatabase, openDatabase } from "./database-option.js";
import { describeDemo } from "./demo-command.js";
import { parseOptionsOnly } from "./options-only-command-line.js";
import { serveStore } from "./serve-command.js";

const usage = `usage: feed-service start-demo [--port 8080] [--host 0.0.0.0] [--public-url <url>]

Creates ${defaultDatabase} with the demo corpus when it does not exist yet, then serves it.
Options also as FEED_SERVICE_PORT, FEED_SERVICE_HOST, FEED_SERVICE_PUBLIC_URL.`;

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
      host: readStringOption(values, "host") ?? "0.0.0.0",
      publicUrl: readStringOption(values, "public-url"),
      ingest: false,
    };
    const path = resolve(defaultDatabase);
    if (!existsSync(path)) {
      // Built under another name and renamed when complete, so that an interrupted first run
      // leaves no half-filled database for the next run to mistake for a finished one.
      const building = `${path}.building`;
      for (const suffix of ["", "-wal", "-shm"]) rmSync(building + suffix, { force: true });
      context.output.out(`creating ${defaultDatabase} with demo data...\n`);
      const fresh = await openDatabase(building);
      try {
        context.output.out(`loaded ${describeDemo(await loadDemoData(fresh, {}))}\n`);
      } finally {
        await fresh.close();
      }
      renameSync(building, path);
    } else {
      context.output.out(`using the existing ${defaultDatabase}\n`);
    }
    return serveStore(await openDatabase(path, { queryLimits: {} }), settings, context);
  },
};
