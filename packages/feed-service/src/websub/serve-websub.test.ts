// `serve --public-url` with WebSub, as an operator runs it: the CLI adds a feed that names a real
// local hub, serve's first ingest pass discovers the hub and subscribes at once, the hub verifies
// and pushes, and `feeds list` shows the subscription (never its secret or callback).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { localFeedsEnv, runCaptured } from "../test-support/captured-run.js";

// The feeds here are served from 127.0.0.1: the operator allows private fetches.
const cli = (argv: string[], stop?: Promise<string>) => runCaptured(argv, stop, localFeedsEnv);

import { freePort, startTestHub } from "../test-support/test-websub-hub.js";

const dir = mkdtempSync(join(tmpdir(), "feed-serve-websub-"));
after(() => rmSync(dir, { recursive: true, force: true }));

async function until<T>(what: string, probe: () => T | undefined, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test("serve --public-url subscribes to a feed's hub, accepts its pushes, and feeds list shows it", async () => {
  const hub = await startTestHub();
  const db = ["--database", join(dir, "feeds.db")];
  try {
    const added = await cli(["feeds", "add", `${hub.base}/atom`, "--name", "Hubbed", ...db]);
    assert.equal(added.code, 0, added.stderr);
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    let stop!: (signal: string) => void;
    const serving = cli(
      ["serve", "--port", String(port), "--host", "127.0.0.1", "--public-url", publicUrl, ...db],
      new Promise((resolve) => {
        stop = resolve;
      }),
    );
    try {
      const request = await until("a verified subscription request", () =>
        hub.requests.find((r) => r.verification !== undefined),
      );
      assert.deepEqual(request.verification, { status: 200, echoed: true, nosniff: true });
      const callback = request.params["hub.callback"]!;
      assert.ok(callback.startsWith(`${publicUrl}/websub/`), callback);
      const pushed = hub.atomFeed([{ id: "urn:pushed-by-hub", title: "Pushed by the hub" }]);
      assert.equal(await hub.push(callback, pushed, { secret: request.params["hub.secret"]! }), 202);
      const posts = await fetch(`${publicUrl}/api/v1/posts?limit=10`).then((r) => r.json());
      assert.ok(JSON.stringify(posts).includes("Pushed by the hub"), "the pushed post is served");

      const listed = await cli(["feeds", "list", "--json", ...db]);
      assert.equal(listed.code, 0, listed.stderr);
      const [feed] = JSON.parse(listed.stdout);
      assert.equal(feed.websub.state, "active");
      assert.equal(feed.websub.hubUrl, `${hub.base}/hub`);
      assert.equal(feed.websub.topicUrl, `${hub.base}/atom`);
      assert.match(feed.websub.lastPushAt, /^\d{4}-\d\d-\d\dT/);
      for (const secretish of [request.params["hub.secret"]!, callback.split("/").pop()!]) {
        assert.ok(!listed.stdout.includes(secretish), "feeds list never shows the secret or callback id");
      }
      const table = await cli(["feeds", "list", ...db]);
      assert.match(table.stdout.split("\n")[0]!, / websub /);
      assert.match(table.stdout.split("\n")[1]!, / active( {2}|$)/);
    } finally {
      stop("SIGTERM");
      const ended = await serving;
      assert.equal(ended.code, 0, ended.stderr);
      assert.ok(
        !ended.stdout.includes(hub.requests[0]?.params["hub.secret"] ?? "-"),
        "serve never logs the secret",
      );
    }
  } finally {
    await hub.close();
  }
});
