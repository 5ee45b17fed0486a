/**
 * Crash safety: a child process ingests many feeds and is killed (SIGKILL) in the middle of the
 * pass; a restarted pass must lose no post stored before the kill and duplicate none. Each feed's
 * update is one transaction, so after the kill every feed holds all of its posts or none.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { runIngestPass } from "./ingest-pass.js";

const FEEDS = 40;
const ITEMS = 20;
let server: Server;
let base: string;
const dir = mkdtempSync(join(tmpdir(), "feed-crash-"));

function feed(n: number): string {
  const items = Array.from(
    { length: ITEMS },
    (_, i) =>
      `<item><title>Feed ${n} item ${i}</title><link>${base}/p/${n}/${i}</link><guid>g-${n}-${i}</guid>` +
      `<description>${"text ".repeat(50)}</description></item>`,
  ).join("");
  return `<rss version="2.0"><channel><title>Feed ${n}</title><language>en</language>${items}</channel></rss>`;
}

before(async () => {
  server = createServer((req, res) => {
    const n = Number(/^\/f\/(\d+)$/.exec(req.url ?? "")?.[1] ?? Number.NaN);
    if (!Number.isInteger(n)) return void res.writeHead(404).end();
    // Slow enough that the pass is still running when the child is killed.
    setTimeout(() => res.writeHead(200, { "content-type": "application/rss+xml" }).end(feed(n)), 40);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function snapshot(store: Store): Promise<Map<number, string[]>> {
  const byFeed = new Map<number, string[]>();
  for (const f of await store.adminFeeds()) {
    const posts = await store.postsByFeed({ feedId: f.feedId, limit: 1000, offset: 0 });
    byFeed.set(f.feedId, posts.map((p) => `${p.postId} ${p.postLink}`).sort());
  }
  return byFeed;
}

test("killing the process mid-ingest loses no stored post and duplicates none after restart", async () => {
  const db = join(dir, "feeds.db");
  const setup = await openStore(db);
  for (let n = 0; n < FEEDS; n++) await setup.addFeed({ feedUrl: `${base}/f/${n}`, feedName: `Feed ${n}` });
  await setup.close();

  const pass = new URL("./ingest-pass.ts", import.meta.url).href;
  const open = new URL("../store/open-store.ts", import.meta.url).href;
  const code = `
    const { runIngestPass } = await import(${JSON.stringify(pass)});
    const { openStore } = await import(${JSON.stringify(open)});
    const store = await openStore(${JSON.stringify(db)});
    await runIngestPass(store, { all: true, overall: 2, perHost: 2, parseWorkers: 0,
      onProgress: (done) => process.stdout.write("done " + done + "\\n") });
    process.stdout.write("finished\\n");`;
  const child = spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", code],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  const killed = new Promise<void>((resolve) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk;
      const done = [...output.matchAll(/done (\d+)/g)].length;
      if (done >= 8 && !child.killed) child.kill("SIGKILL");
    });
    child.on("exit", () => resolve());
  });
  await killed;
  assert.ok(
    !output.includes("finished"),
    "the child finished before it could be killed; make the server slower",
  );

  const afterKill = await openStore(db);
  const before = await snapshot(afterKill);
  const partial = [...before.values()].filter((posts) => posts.length !== 0 && posts.length !== ITEMS);
  assert.deepEqual(partial, [], "a feed holds only some of its posts: its update was not one transaction");
  const storedBefore = [...before.values()].filter((p) => p.length === ITEMS).length;
  assert.ok(
    storedBefore >= 8 && storedBefore < FEEDS,
    `expected a partial pass, got ${storedBefore} feeds stored`,
  );

  const summary = await runIngestPass(afterKill, { all: true, parseWorkers: 0 });
  assert.equal(summary.failed, 0);
  const restarted = await snapshot(afterKill);
  await afterKill.close();
  for (const [feedId, posts] of before) {
    const now = restarted.get(feedId)!;
    for (const p of posts) assert.ok(now.includes(p), `post ${p} of feed ${feedId} was lost`);
    assert.equal(now.length, ITEMS, `feed ${feedId} has ${now.length} posts, not ${ITEMS}`);
    const links = now.map((p) => p.split(" ")[1]);
    assert.equal(new Set(links).size, links.length, `feed ${feedId} has duplicate posts`);
  }
});
