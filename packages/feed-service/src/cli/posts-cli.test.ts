// `feed-service posts duplicates` through the built bin (`npx tsc -b` first), on SQLite and
// PostgreSQL: the merges listed for review (table and --json), --undo splitting one story again,
// and the exit codes (0 done, 1 nothing to split, 2 usage).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { openStore } from "../store/open-store.js";
import { T0 } from "../test-support/store-contract/contract-fixture.js";
import { storyPost, storyTexts } from "../test-support/story-posts.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";

const bin = fileURLToPath(new URL("../../bin/feed-service.js", import.meta.url));

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

const post = (guid: string, link: string, title: string, excerpt: string) =>
  storyPost(guid, link, title, excerpt, T0, { content: "" });

const backends: TestBackend[] = [sqliteBackend, postgresBackend()];
after(() => Promise.all(backends.map((b) => b.stop())));

for (const backend of backends) {
  describe(`posts duplicates (${backend.name})`, () => {
    it("lists the merges, splits one on --undo, and exits 1 or 2 on what it cannot do", async () => {
      const db = await backend.newDatabase();
      const where = ["--database", db.location];
      const seed = await openStore(db.location);
      let storyId: number;
      try {
        const blog = (await seed.addFeed({ feedUrl: "https://blog.example/feed", feedName: "Blog" })).feedId;
        const planet = (await seed.addFeed({ feedUrl: "https://planet.example/feed", feedName: "Planet" }))
          .feedId;
        await seed.applyFeedUpdate(blog, {
          fetchState: {},
          posts: [post("a1", "https://blog.example/tram", "Tram", storyTexts.tram)],
        });
        await seed.applyFeedUpdate(planet, {
          fetchState: {},
          posts: [
            post("b1", "https://blog.example/tram/?utm_source=planet", "Tram \u001b[31m(planet)", "A note."),
          ],
        });
        storyId = (await seed.recentPosts({ limit: 1, offset: 0, languageIds: null }))[0]!.postId;
      } finally {
        await seed.close();
      }

      const listed = await cli(["posts", "duplicates", "--json", ...where]);
      assert.equal(listed.code, 0, listed.stderr);
      const rows = JSON.parse(listed.stdout);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].storyId, storyId);
      assert.equal(rows[0].storyTitle, "Tram");
      assert.equal(rows[0].copyGuid, "b1");
      assert.equal(rows[0].mergedBy, "link");
      assert.equal(rows[0].mergedAt, new Date(T0).toISOString());
      assert.ok(!rows[0].copyTitle.includes("\u001b"), "control characters never reach the terminal");
      const table = await cli(["posts", "duplicates", ...where]);
      assert.equal(table.code, 0);
      assert.match(table.stdout, new RegExp(`^storyId .*\\n${storyId} `));

      const undone = await cli(["posts", "duplicates", "--undo", String(storyId), ...where]);
      assert.equal(undone.code, 0, undone.stderr);
      assert.equal(undone.stdout, `split story ${storyId}\n`);
      assert.equal((await cli(["posts", "duplicates", ...where])).stdout, "(none)\n");
      const again = await cli(["posts", "duplicates", "--undo", String(storyId), ...where]);
      assert.equal(again.code, 1);
      assert.match(again.stderr, new RegExp(`No story with id ${storyId} has copies to split`));
      const check = await openStore(db.location);
      try {
        assert.equal((await check.recentPosts({ limit: 10, offset: 0, languageIds: null })).length, 2);
      } finally {
        await check.close();
      }

      const bad = await cli(["posts", "duplicates", "--undo", "x", ...where]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /The story id must be a whole number of 1 or more; got "x"/);
      assert.equal((await cli(["posts", "duplicates", "extra", ...where])).code, 2);
      assert.equal((await cli(["posts", "nothing", ...where])).code, 2);
      const help = await cli(["posts", "--help"]);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /duplicates --undo <storyId>/);
      db.drop();
    });
  });
}
