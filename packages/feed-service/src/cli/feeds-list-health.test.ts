// `feeds list` as operators and scripts read it: each feed's last success, last error (code,
// time, stage, message), failures in a row and next check, in the table and in `--json`, after
// real ingest passes (`feed-service ingest --all`) against a local HTTP server.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { localFeedsEnv, runCaptured } from "../test-support/captured-run.js";

// The feeds here are served from 127.0.0.1: the operator allows private fetches.
const cli = (argv: string[], stop?: Promise<string>) => runCaptured(argv, stop, localFeedsEnv);

let server: Server;
let base: string;
let flakyUp = true;
const dir = mkdtempSync(join(tmpdir(), "feed-list-health-"));
const rss = (title: string) =>
  `<rss version="2.0"><channel><title>${title}</title><language>en</language>
   <item><title>Hello</title><link>https://site.example/${title}</link><guid>${title}-1</guid></item></channel></rss>`;

before(async () => {
  server = createServer((req, res) => {
    if (req.url === "/ok.xml") return void res.writeHead(200).end(rss("ok"));
    if (req.url === "/flaky.xml") {
      if (flakyUp) return void res.writeHead(200).end(rss("flaky"));
      return void res.writeHead(503).end();
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

interface ListedFeed {
  feedId: number;
  feedName: string;
  lastSuccessAt: string | null;
  lastErrorAt: string | null;
  lastErrorStage: string | null;
  lastErrorCode: string | null;
  lastError: string | null;
  consecutiveFailures: number;
  nextFetchAt: string;
}

test("feeds list shows each feed's health, and --json the same fields for scripts", async () => {
  const db = ["--database", join(dir, "health.db")];
  for (const [name, path] of [
    ["Ok", "/ok.xml"],
    ["Flaky", "/flaky.xml"],
    ["Gone", "/gone.xml"],
  ]) {
    // --force: /gone.xml answers 404, which feeds add otherwise refuses.
    const added = await cli(["feeds", "add", `${base}${path}`, "--name", name!, "--force", ...db]);
    assert.equal(added.code, 0, added.stderr);
  }
  const started = Date.now();
  await cli(["ingest", "--all", ...db]);
  flakyUp = false;
  await cli(["ingest", "--all", ...db]);
  await cli(["ingest", "--all", ...db]);

  const listed = await cli(["feeds", "list", "--json", ...db]);
  assert.equal(listed.code, 0, listed.stderr);
  const feeds = new Map((JSON.parse(listed.stdout) as ListedFeed[]).map((f) => [f.feedName, f]));

  const ok = feeds.get("Ok")!;
  assert.equal(ok.consecutiveFailures, 0);
  assert.ok(Date.parse(ok.lastSuccessAt!) >= started - 1000, "last success is an ISO time of this run");
  assert.deepEqual([ok.lastErrorCode, ok.lastErrorAt, ok.lastError], [null, null, null]);

  const flaky = feeds.get("Flaky")!;
  assert.equal(flaky.consecutiveFailures, 2);
  assert.ok(flaky.lastSuccessAt !== null, "the first pass succeeded");
  assert.deepEqual(
    [flaky.lastErrorStage, flaky.lastErrorCode, flaky.lastError],
    ["http", "HTTP_5XX", "The server answered HTTP 503."],
  );
  assert.ok(Date.parse(flaky.lastErrorAt!) >= Date.parse(flaky.lastSuccessAt!));
  // Two failures in a row: the second backoff step (30 minutes) from the last error.
  assert.equal(Date.parse(flaky.nextFetchAt) - Date.parse(flaky.lastErrorAt!), 30 * 60_000);

  const gone = feeds.get("Gone")!;
  assert.deepEqual(
    [gone.lastSuccessAt, gone.lastErrorStage, gone.lastErrorCode, gone.consecutiveFailures],
    [null, "http", "HTTP_404", 3],
  );

  const table = await cli(["feeds", "list", ...db]);
  const [header, ...rows] = table.stdout.trimEnd().split("\n");
  assert.match(
    header!,
    /^feedId +feedName +feedUrl +postCount +lastSuccessAt +lastErrorCode +lastErrorAt +consecutiveFailures +nextFetchAt +websub +lastError$/,
  );
  const goneRow = rows.find((r) => r.includes("/gone.xml"))!;
  assert.match(
    goneRow,
    / HTTP_404 +\d{4}-\d\d-\d\dT[\d:.]+Z +3 +\d{4}-\d\d-\d\dT[\d:.]+Z +The server answered HTTP 404\.$/,
  );
});
