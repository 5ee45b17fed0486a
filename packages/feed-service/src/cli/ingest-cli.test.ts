// `feed-service ingest`, `opml import|export`, discovery in `feeds add` and the scheduler in
// `serve`, run in-process through main() against a real local HTTP server and SQLite files.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { defaultDetectableLanguages, setDetectableLanguages } from "../ingest/detectable-languages.js";
import { openStore } from "../store/open-store.js";
import { localFeedsEnv, runCaptured } from "../test-support/captured-run.js";

let server: Server;
let base: string;
const dir = mkdtempSync(join(tmpdir(), "feed-ingest-cli-"));
const rss = (title: string) =>
  `<rss version="2.0"><channel><title>${title}</title><link>https://site.example/</link><language>en</language>
   <item><title>Hello</title><link>https://site.example/hello</link><guid>h1</guid><description>Hi there</description></item>
   </channel></rss>`;

/** A feed that declares no language, its one post in English. */
const undeclared = `<rss version="2.0"><channel><title>No language</title><link>https://site.example/</link>
   <item><title>Council budget</title><link>https://site.example/budget</link><guid>b1</guid>
   <description>The city council approved a new budget on Tuesday that doubles the money for bicycle lanes and bridge repairs.</description></item>
   </channel></rss>`;

before(async () => {
  server = createServer((req, res) => {
    if (req.url === "/page/") {
      res.writeHead(200, { "content-type": "text/html" });
      return void res.end(
        '<html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head></html>',
      );
    }
    if (req.url === "/feed.xml") {
      if (req.headers["if-none-match"] === '"1"') return void res.writeHead(304).end();
      return void res.writeHead(200, { etag: '"1"' }).end(rss("Found Feed"));
    }
    if (req.url === "/other.xml") return void res.writeHead(200).end(rss("Other Feed"));
    if (req.url === "/missing.xml") return void res.writeHead(404).end("no such feed");
    if (req.url === "/undeclared.xml") return void res.writeHead(200).end(undeclared);
    if (req.url === "/plain/")
      return void res.writeHead(200, { "content-type": "text/html" }).end("<html></html>");
    res.writeHead(500).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

// The feeds here are served from 127.0.0.1: the operator allows private fetches.
const cli = (argv: string[], stop?: Promise<string>) => runCaptured(argv, stop, localFeedsEnv);

test("feeds add discovers the feed behind a page; ingest stores it and sums up; feeds list shows errors", async () => {
  const db = ["--database", join(dir, "a.db")];
  const added = await cli(["feeds", "add", `${base}/page/`, "--json", ...db]);
  assert.equal(added.code, 0, added.stderr);
  const row = JSON.parse(added.stdout);
  assert.equal(row.feedUrl, `${base}/feed.xml`);
  assert.equal(row.feedName, "Found Feed");
  const refused = await cli(["feeds", "add", `${base}/plain/`, ...db]);
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /Not added: .*\/plain\/ gave PARSE_NOT_A_FEED: The page is HTML and names no feed/,
  );
  // A feed that fails now is added only when asked to (--force), with a warning.
  const addBroken = ["feeds", "add", `${base}/broken.xml`, "--name", "Broken", ...db];
  const brokenRefused = await cli(addBroken);
  assert.equal(brokenRefused.code, 1);
  assert.match(brokenRefused.stderr, /gave HTTP_5XX: The server answered HTTP 500\. .*--force/);
  const forced = await cli([...addBroken, "--force"]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stderr, /HTTP_5XX.*adding it as given \(--force\)/);

  // One feed of two failed: the pass stores the other and exits 1, naming the failure.
  const first = await cli(["ingest", ...db]);
  assert.equal(first.code, 1, first.stderr);
  assert.match(
    first.stdout,
    /^ingest: 2 feeds: 1 updated, 0 not modified, 1 failed, 0 deferred; 1 new posts, 0 updated posts/,
  );
  assert.match(first.stdout, /broken\.xml: http HTTP_5XX: The server answered HTTP 500\./);
  const nothingDue = await cli(["ingest", ...db]);
  assert.match(nothingDue.stdout, /^ingest: 0 feeds:/);
  assert.equal(nothingDue.code, 0);
  const again = JSON.parse((await cli(["ingest", "--all", "--json", ...db])).stdout);
  assert.deepEqual([again.feeds, again.notModified, again.failed], [2, 1, 1]);

  const list = JSON.parse((await cli(["feeds", "list", "--json", ...db])).stdout);
  const broken = list.find((f: { feedName: string }) => f.feedName === "Broken");
  assert.equal(broken.errorCount, 2);
  assert.equal(broken.lastError, "The server answered HTTP 500.");
  assert.match((await cli(["feeds", "list", ...db])).stdout, /lastErrorCode.*consecutiveFailures.*lastError/);
});

test("feeds add refuses a 404 and an unreachable host with the failure code, exit 1, unless --force", async () => {
  const db = ["--database", join(dir, "refuse.db")];
  const notFound = await cli(["feeds", "add", `${base}/missing.xml`, ...db]);
  assert.equal(notFound.code, 1);
  assert.equal(notFound.stdout, "");
  assert.match(
    notFound.stderr,
    /^feed-service feeds: Not added: http:\/\/127\.0\.0\.1:\d+\/missing\.xml gave HTTP_404: [^\n]*404[^\n]*--force\.\n$/,
  );
  // A port nobody listens on: the server that held it is closed again.
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
  const unreachable = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/feed.xml`;
  await new Promise((r) => closed.close(r));
  const refused = await cli(["feeds", "add", unreachable, "--json", ...db]);
  assert.equal(refused.code, 1);
  assert.equal(refused.stdout, "");
  assert.match(refused.stderr, /gave CONNECTION_REFUSED: /);
  assert.ok(!existsSync(join(dir, "refuse.db")), "a refused feed created the database");
  // --force adds it as given (named after its host until a fetch learns the title); --json still works.
  const forced = await cli(["feeds", "add", unreachable, "--json", "--force", ...db]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stderr, /CONNECTION_REFUSED.*adding it as given \(--force\)/);
  const row = JSON.parse(forced.stdout);
  assert.equal(row.feedUrl, unreachable);
  assert.equal(row.feedName, "127.0.0.1");
});

test("ingest exits 0 when every feed was refreshed, 1 when any failed, 2 on a usage error", async () => {
  const db = ["--database", join(dir, "b.db")];
  await cli(["feeds", "add", `${base}/other.xml`, ...db]);
  const ok = await cli(["ingest", ...db]);
  assert.equal(ok.code, 0, ok.stdout);
  assert.match(ok.stdout, /^ingest: 1 feed: 1 updated, 0 not modified, 0 failed/);
  await cli(["feeds", "add", `${base}/down.xml`, "--name", "Down", "--force", ...db]);
  const r = await cli(["ingest", "--all", ...db]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^ingest: 2 feeds: .* 1 failed, /);
  assert.match(
    r.stdout,
    /\n {2}feed \d+ http:\/\/127\.0\.0\.1:\d+\/down\.xml: http HTTP_5XX: The server answered HTTP 500\.\n/,
  );
  assert.equal((await cli(["ingest", "extra", ...db])).code, 2);
  assert.equal((await cli(["ingest", "--concurrency", "0", ...db])).code, 2);
});

test("ingest --detect-languages: a guess outside the list is und, one inside it is kept", async () => {
  const location = join(dir, "guess.db");
  const db = ["--database", location];
  assert.equal(
    (await cli(["feeds", "add", `${base}/undeclared.xml`, "--name", "No language", ...db])).code,
    0,
  );
  const languageOfPost = async () => {
    const store = await openStore(location);
    try {
      const [post] = await store.recentPosts({ limit: 1, offset: 0, languageIds: null });
      return (await store.languageById(post!.languageId))?.languageCode;
    } finally {
      await store.close();
    }
  };
  try {
    const narrow = await cli(["ingest", "--all", "--detect-languages", "de,fr", ...db]);
    assert.equal(narrow.code, 0, narrow.stderr);
    assert.equal(await languageOfPost(), "und");
    assert.equal((await cli(["ingest", "--all", "--detect-languages", "en,de", ...db])).code, 0);
    assert.equal(await languageOfPost(), "en", "the post is filed again at its next refresh");
    const usage = await cli(["ingest", "--detect-languages", "en,la-tin", ...db]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--detect-languages must be none or a comma-separated list[^\n]*got "la-tin"/);
  } finally {
    setDetectableLanguages(defaultDetectableLanguages);
  }
});

test("opml export then import into another database round-trips the subscriptions", async () => {
  const a = ["--database", join(dir, "c.db")];
  await cli(["categories", "add", "Tech", ...a]);
  await cli(["feeds", "add", `${base}/feed.xml`, "--category", "Tech", ...a]);
  await cli(["feeds", "add", `${base}/other.xml`, ...a]);
  const exported = await cli(["opml", "export", ...a]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(exported.stdout, /<opml version="2.0">/);
  const file = join(dir, "subs.opml");
  writeFileSync(file, exported.stdout);
  const b = ["--database", join(dir, "d.db")];
  const imported = await cli(["opml", "import", file, ...b]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /2 feeds in the file: 2 added, 0 already subscribed, 0 skipped/);
  const feeds = JSON.parse((await cli(["feeds", "list", "--json", ...b])).stdout);
  assert.deepEqual(
    feeds.map((f: { categoryName: string | null }) => f.categoryName).sort(),
    ["Tech", null].sort(),
  );
  const missing = await cli(["opml", "import", join(dir, "nope.opml"), ...b]);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /no such file/);
});

test("serve refreshes feeds in the background unless --no-ingest", async () => {
  const path = join(dir, "e.db");
  await cli(["feeds", "add", `${base}/other.xml`, "--name", "Other", "--database", path]);
  for (const ingest of [false, true]) {
    let stop!: (s: string) => void;
    const stopped = new Promise<string>((r) => {
      stop = r;
    });
    const args = ["serve", "--port", "0", "--host", "127.0.0.1", "--database", path];
    const running = cli(ingest ? args : [...args, "--no-ingest"], stopped);
    let posts = 0;
    // With ingest on, wait as long as a loaded machine needs (the loop ends at the first post);
    // with --no-ingest, 4 s of nothing stored is the check.
    const polls = ingest ? 300 : 40;
    for (let i = 0; i < polls && posts === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const store = await openStore(path);
      posts = (await store.recentPosts({ limit: 10, offset: 0, languageIds: null })).length;
      await store.close();
    }
    stop("SIGTERM");
    assert.equal((await running).code, 0);
    assert.equal(posts > 0, ingest, ingest ? "the scheduler stored nothing" : "--no-ingest still ingested");
  }
});
