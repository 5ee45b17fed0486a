#!/usr/bin/env node
// Takes the README's screenshots of the web pages: `/` on a desktop and on a phone (and the phone
// in dark mode), in the same Chromium the browser tests use (playwright-core driving
// /usr/bin/chromium), from the real service on a fresh demo database at a pinned clock, so that
// a rerun gives the same pictures. Runs the TypeScript sources (the browser launcher is test
// support, not part of the built package).
// Usage: node --import tsx packages/feed-service/scripts/page-screenshots.mjs [output folder]
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const src = new URL("../src/", import.meta.url);
const load = (path) => import(new URL(path.replace(/\.js$/, ".ts"), src).href);
const { openStore } = await load("store/open-store.js");
const { loadDemoData } = await load("demo/load-demo-data.js");
const { createOperationRunner } = await load("operations/operation-runner.js");
const { parseSearchQuery } = await load("search/parse-search-query.js");
const { createFeedServer } = await load("http/feed-server.js");
const { launchChromium } = await load("test-support/browser-launch.js");

const out = process.argv[2] ?? new URL("../docs/screenshots/", import.meta.url).pathname;
const now = Date.UTC(2026, 0, 15, 12, 0, 0);
const shots = [
  { file: "recent-desktop.png", viewport: { width: 1200, height: 760 }, colorScheme: "light" },
  { file: "recent-phone.png", viewport: { width: 360, height: 740 }, colorScheme: "light", isMobile: true },
  {
    file: "recent-phone-dark.png",
    viewport: { width: 360, height: 740 },
    colorScheme: "dark",
    isMobile: true,
  },
];

const folder = mkdtempSync(join(tmpdir(), "feed-service-screenshots-"));
const store = await openStore(join(folder, "feeds.db"));
const launched = await launchChromium();
if (typeof launched === "string") process.exit(1);
try {
  await loadDemoData(store, { posts: 3000, now });
  const runner = createOperationRunner({ store, parseSearch: parseSearchQuery, now: () => now });
  const server = createFeedServer({ store, runner, now: () => now });
  const { port } = await server.listen(0, "127.0.0.1");
  try {
    mkdirSync(out, { recursive: true });
    for (const shot of shots) {
      const { file, ...options } = shot;
      const context = await launched.browser.newContext({ ...options, deviceScaleFactor: 1 });
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${port}/`);
      const path = join(out, file);
      await page.screenshot({ path });
      await context.close();
      console.log(`${path} (${Math.round(statSync(path).size / 1024)} KB)`);
    }
  } finally {
    await server.close();
  }
} finally {
  await launched.close();
  await store.close();
  rmSync(folder, { recursive: true, force: true });
}
