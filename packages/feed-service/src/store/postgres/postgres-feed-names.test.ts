/**
 * The feed names a search's `feed:` resolves against (postgres-feed-names.ts, migration 29) on a
 * real PostgreSQL server: two stores on one database stand for two processes (`serve --workers
 * N`); the one that searches keeps its names while none changes and sees every feed the other one
 * adds, renames or removes, and every name migrate-data's clear and COPY write, on its next call.
 * A refresh that keeps the name counts no change.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { resolveSearchFilters } from "../../operations/search-filters.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import type { PostFilter } from "../../search/search-query.js";
import { incoming, T0 } from "../../test-support/store-contract/contract-fixture.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { openPostgresPool, rows } from "./postgres-connection.js";
import { feedNameChangesSchema } from "./postgres-feed-names.js";
import { latestPostgresVersion, migratePostgres } from "./postgres-migrations.js";
import { openPostgresStore, type PostgresStore } from "./postgres-store.js";

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(() => server?.stop());

const changes = async (pool: pg.Pool) =>
  Number((await rows<{ changes: string }>(pool, "SELECT changes FROM feed_name_changes"))[0]!.changes);

/** The ids `feed:word` resolves to through `store`, sorted. */
async function feedIds(store: PostgresStore, word: string): Promise<number[]> {
  const query = await resolveSearchFilters(store, parseSearchQuery(`feed:${word}`));
  const filter = query.filterClauses![0]![0] as PostFilter & { kind: "feed" };
  return [...filter.feedIds!].sort((a, b) => a - b);
}

/** Every feed's id and name as the table holds them, sorted by id. */
const stored = async (pool: pg.Pool) =>
  rows<{ feedId: number; feedName: string }>(
    pool,
    'SELECT id AS "feedId", name AS "feedName" FROM feeds ORDER BY id',
  );

describe("PostgreSQL feed names for feed:", () => {
  it("stay in the process until another store adds, renames or removes a feed", async () => {
    const url = await server.createDatabase("feed_names");
    const searching = await openPostgresStore({ url });
    const writing = await openPostgresStore({ url });
    const pool = await openPostgresPool({ url });
    try {
      const a = await writing.addFeed({ feedUrl: "https://a.test/feed", feedName: "Kyoto Notes" });
      const b = await writing.addFeed({ feedUrl: "https://b.test/feed", feedName: "Osaka Daily" });
      assert.deepEqual(await feedIds(searching, "kyoto"), [a.feedId]);
      const first = await searching.feedNames();
      assert.deepEqual(
        [...first].sort((x, y) => x.feedId - y.feedId),
        await stored(pool),
      );
      // Nothing changed: the very list the last call read.
      assert.equal(await searching.feedNames(), first, "kept while no feed changes");

      // A refresh that keeps the name (fetch state, posts, a running post count) counts nothing.
      const before = await changes(pool);
      await writing.applyFeedUpdate(b.feedId, {
        fetchState: {},
        feed: { feedName: "Osaka Daily" },
        posts: [incoming("osaka-1", { title: "morning", publishedAt: T0 })],
      });
      assert.equal(await changes(pool), before, "same name: no change counted");
      assert.equal(await searching.feedNames(), first);

      await writing.applyFeedUpdate(b.feedId, {
        fetchState: {},
        feed: { feedName: "Kyoto Evening" },
        posts: [],
      });
      assert.deepEqual(await feedIds(searching, "kyoto"), [a.feedId, b.feedId], "renamed elsewhere");
      assert.deepEqual(await feedIds(searching, "osaka"), []);

      const c = await writing.addFeed({ feedUrl: "https://c.test/feed", feedName: "Kyoto Gardens" });
      assert.deepEqual(await feedIds(searching, "kyoto"), [a.feedId, b.feedId, c.feedId], "added elsewhere");

      assert.ok(await writing.removeFeed(a.feedId));
      assert.deepEqual(await feedIds(searching, "kyoto"), [b.feedId, c.feedId], "removed elsewhere");

      // Written by hand (another build, a script): the triggers count it all the same.
      await pool.query("UPDATE feeds SET name = 'Nara Letters', name_key = 'nara letters' WHERE id = $1", [
        c.feedId,
      ]);
      assert.deepEqual(await feedIds(searching, "nara"), [c.feedId]);
      await pool.query("TRUNCATE feeds CASCADE");
      assert.deepEqual(await searching.feedNames(), []);
      await pool.query(
        "INSERT INTO feeds (id, url, name, name_key, language_id) VALUES (7, 'https://d.test/', 'Kyoto Again', 'kyoto again', 1)",
      );
      assert.deepEqual(
        await feedIds(searching, "kyoto"),
        [7],
        "a truncate and an insert, as migrate-data writes",
      );
      assert.deepEqual(await searching.feedNames(), await stored(pool));
    } finally {
      await pool.end();
      await searching.close();
      await writing.close();
    }
  });

  it("migration 29 taken again keeps one counter row and one trigger of each kind", async () => {
    const url = await server.createDatabase("feed_names_again");
    const pool = await openPostgresPool({ url });
    try {
      assert.equal(await migratePostgres(pool), latestPostgresVersion);
      await pool.query(
        "INSERT INTO feeds (url, name, name_key, language_id) VALUES ('https://e.test/', 'E', 'e', 1)",
      );
      const counted = await changes(pool);
      assert.ok(counted >= 1);
      await pool.query("DELETE FROM schema_migrations WHERE version >= 29");
      assert.equal(await migratePostgres(pool), latestPostgresVersion);
      await pool.query(feedNameChangesSchema);
      assert.equal(await changes(pool), counted, "the count survives");
      const triggers = await rows<{ tgname: string }>(
        pool,
        "SELECT tgname FROM pg_trigger WHERE tgrelid = 'feeds'::regclass AND tgname LIKE 'feeds_%' ORDER BY 1",
      );
      assert.deepEqual(
        triggers.map((t) => t.tgname),
        ["feeds_added_or_removed", "feeds_renamed"],
      );
    } finally {
      await pool.end();
    }
  });
});
