// The built bin (`npx tsc -b` first) on SQLite and PostgreSQL: by default `feeds add`, `ingest`
// and `opml import <url>` fetch from public addresses only (spec §5.5), so a feed on 127.0.0.1 is
// refused with ADDRESS_REFUSED and never requested, even with --force; --allow-private-fetch, or
// FEED_SERVICE_ALLOW_PRIVATE_FETCH=1, lets the operator fetch it. `serve`'s background ingest
// follows the same default (on SQLite). A local server counts requests.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { openStore } from "../store/open-store.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";

const bin = fileURLToPath(new URL("../../bin/feed-service.js", import.meta.url));

function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { FEED_SERVICE_ALLOW_PRIVATE_FETCH: _, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { timeout: 60_000, env: { ...inherited, ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

const rss = `<rss version="2.0"><channel><title>Intranet</title><item><title>A</title><guid>a</guid></item></channel></rss>`;
let requests = 0;
let server: Server;
let base: string;

before(async () => {
  server = createServer((req, res) => {
    requests++;
    if (req.url === "/subs.opml")
      res
        .writeHead(200, { "content-type": "text/x-opml" })
        .end(
          `<opml version="2.0"><body><outline text="I" type="rss" xmlUrl="${base}/feed.xml"/></body></opml>`,
        );
    else res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

/** Runs `serve` until its first background ingest pass prints its summary; returns that line. */
function firstServePass(db: string, env: Record<string, string> = {}): Promise<string> {
  const { FEED_SERVICE_ALLOW_PRIVATE_FETCH: _, ...inherited } = process.env;
  const args = ["serve", "--host", "127.0.0.1", "--port", "0", "--no-warm", "--database", db];
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no ingest pass within 60 s:\n${out}`));
    }, 60_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^ingest: .*$/m.exec(out)?.[0];
      if (line && out.endsWith("\n")) {
        clearTimeout(timer);
        child.once("exit", () => resolve(out.slice(out.indexOf(line))));
        child.kill("SIGTERM");
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
  });
}

describe("serve's background ingest", () => {
  it("refuses a feed on 127.0.0.1 by default and fetches it with FEED_SERVICE_ALLOW_PRIVATE_FETCH=1", async () => {
    const db = await sqliteBackend.newDatabase();
    try {
      const added = await cli(["feeds", "add", `${base}/feed.xml`, "--database", db.location], {
        FEED_SERVICE_ALLOW_PRIVATE_FETCH: "1",
      });
      assert.equal(added.code, 0, added.stderr);
      const start = requests;
      const refused = await firstServePass(db.location);
      assert.match(refused, /ingest: 1 feed: 0 updated, 0 not modified, 1 failed/);
      assert.match(
        refused,
        /fetch ADDRESS_REFUSED: Not fetched: 127\.0\.0\.1 is not a public internet address/,
      );
      assert.equal(requests, start, "serve requested nothing");
      // The failed feed waits for its retry: refresh makes it due for the next start.
      assert.equal((await cli(["feeds", "refresh", "1", "--database", db.location])).code, 0);
      const allowed = await firstServePass(db.location, { FEED_SERVICE_ALLOW_PRIVATE_FETCH: "1" });
      assert.match(allowed, /ingest: 1 feed: 1 updated/);
      assert.equal(requests, start + 1);
    } finally {
      db.drop();
    }
  });
});

const backends: TestBackend[] = [sqliteBackend, postgresBackend()];
after(() => Promise.all(backends.map((b) => b.stop())));

for (const backend of backends) {
  describe(`private addresses from the command line (${backend.name})`, () => {
    it("feeds add, ingest and opml import refuse 127.0.0.1 by default and fetch it when allowed", async () => {
      const db = await backend.newDatabase();
      const where = ["--database", db.location];
      try {
        const start = requests;
        const refused = await cli(["feeds", "add", `${base}/feed.xml`, ...where]);
        assert.equal(refused.code, 1, refused.stderr);
        assert.match(
          refused.stderr,
          /ADDRESS_REFUSED: Not fetched: 127\.0\.0\.1 is not a public internet address/,
        );
        assert.match(refused.stderr, /--allow-private-fetch/);
        const forced = await cli(["feeds", "add", `${base}/feed.xml`, "--force", ...where]);
        assert.equal(forced.code, 1, "--force does not override the address rule");
        assert.match(forced.stderr, /ADDRESS_REFUSED/);
        const opml = await cli(["opml", "import", `${base}/subs.opml`, ...where]);
        assert.equal(opml.code, 1, opml.stderr);
        assert.match(opml.stderr, /not a public internet address/);
        assert.equal(requests, start, "nothing was requested");

        const added = await cli(["feeds", "add", `${base}/feed.xml`, "--allow-private-fetch", ...where]);
        assert.equal(added.code, 0, added.stderr);
        assert.equal(requests, start + 1);
        const imported = await cli(["opml", "import", `${base}/subs.opml`, "--json", ...where], {
          FEED_SERVICE_ALLOW_PRIVATE_FETCH: "1",
        });
        assert.equal(imported.code, 0, imported.stderr);
        assert.equal(JSON.parse(imported.stdout).alreadyPresent, 1);
        assert.equal(requests, start + 2);

        // Ingest by default: recorded on the feed, exit 1, not requested.
        const ingest = await cli(["ingest", "--all", ...where]);
        assert.equal(ingest.code, 1, ingest.stdout);
        assert.match(ingest.stdout, /fetch ADDRESS_REFUSED: Not fetched: 127\.0\.0\.1/);
        assert.equal(requests, start + 2);
        const store = await openStore(db.location);
        try {
          const [feed] = await store.adminFeeds();
          assert.equal(feed?.lastErrorCode, "ADDRESS_REFUSED");
        } finally {
          await store.close();
        }
        const allowed = await cli(["ingest", "--all", ...where], { FEED_SERVICE_ALLOW_PRIVATE_FETCH: "1" });
        assert.equal(allowed.code, 0, allowed.stdout);
        assert.equal(requests, start + 3);
        const flag = await cli(["ingest", "--all", "--allow-private-fetch", "--json", ...where]);
        assert.equal(flag.code, 0, flag.stdout);
        assert.equal(JSON.parse(flag.stdout).failed, 0);
        assert.equal(requests, start + 4);
      } finally {
        db.drop();
      }
    });
  });
}
