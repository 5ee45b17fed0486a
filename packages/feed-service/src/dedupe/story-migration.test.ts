/**
 * The merging migration (SQLite 18, PostgreSQL 17) on a database that stored copies of one story
 * as posts of their own: the copies become story_copies rows, their clicks count for the story,
 * the feeds' lists and counts still show every story they carry, and progress is reported. The
 * old state is made by splitting merged stories and dropping the story tables; the migration's
 * steps are then run as the migration runs them.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { inTransaction } from "../store/postgres/postgres-connection.js";
import { mergeStoredCopies as mergePostgres } from "../store/postgres/postgres-story-migration.js";
import { storySchema as postgresSchema } from "../store/postgres/postgres-story-schema.js";
import { mergeStoredCopies as mergeSqlite } from "../store/sqlite/sqlite-story-migration.js";
import { storySchema as sqliteSchema } from "../store/sqlite/sqlite-story-schema.js";
import { HOUR, T0 } from "../test-support/store-contract/contract-fixture.js";
import { storyPost, storyTexts } from "../test-support/story-posts.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";
import { withStoreAt } from "../test-support/with-store-at.js";

const drop = "DROP TABLE story_copies; DROP TABLE story_bands; DROP TABLE story_keys;";

const post = (guid: string, link: string, title: string, excerpt: string, hoursAgo: number) =>
  storyPost(guid, link, title, excerpt, T0 - hoursAgo * HOUR);

type Rerun = (
  location: string,
  progress: (step: string, done: number, total: number) => void,
) => Promise<void>;

const sqliteRerun: Rerun = async (location, progress) => {
  const db = new Database(location);
  try {
    db.pragma("foreign_keys = ON");
    db.transaction(() => {
      db.exec(drop);
      db.exec(sqliteSchema);
      mergeSqlite(db, progress);
    })();
  } finally {
    db.close();
  }
};

const postgresRerun: Rerun = async (location, progress) => {
  const pool = new pg.Pool({ connectionString: location, max: 1 });
  try {
    await inTransaction(pool, async (sql) => {
      await sql.query(drop);
      await sql.query(postgresSchema);
      await mergePostgres(sql, progress);
    });
  } finally {
    await pool.end();
  }
};

function migrationSuite(backend: TestBackend, rerun: Rerun): void {
  describe(`the merging migration (${backend.name})`, () => {
    it("merges the copies already stored, moves their clicks, keeps every feed's list whole", async () => {
      const db = await backend.newDatabase();
      try {
        const ids = await withStoreAt(db.location, async (store) => {
          const blog = (await store.addFeed({ feedUrl: "https://blog.example/feed", feedName: "Blog" }))
            .feedId;
          const planet = (await store.addFeed({ feedUrl: "https://planet.example/feed", feedName: "Planet" }))
            .feedId;
          await store.applyFeedUpdate(blog, {
            fetchState: {},
            posts: [
              post("a1", "https://blog.example/tram", "Tram", storyTexts.tram, 1),
              post("a2", "https://blog.example/garden", "Garden", storyTexts.garden, 2),
              post("a3", "https://blog.example/harbour", "Harbour", storyTexts.harbour, 3),
              post("a4", "https://blog.example/status", "Status", "Back online.", 4),
            ],
          });
          await store.applyFeedUpdate(planet, {
            fetchState: {},
            posts: [
              post("b1", "https://blog.example/tram?utm_source=planet", "Tram (planet)", "A note.", 1),
              post("b2", "https://planet.example/garden-copy", "Garden", storyTexts.garden, 2),
              post("b4", "https://planet.example/status", "Status", "Back online.", 4),
            ],
          });
          const stories = (await store.storyMerges(10)).map((m) => m.storyId);
          assert.equal(stories.length, 2, "ingest merged the two copies");
          for (const id of stories) assert.equal(await store.splitStory(id), true);
          // A click on the planet's own copy of the tram story, before the migration.
          const planetPosts = await store.postsByFeed({ feedId: planet, limit: 10, offset: 0 });
          const planetTram = planetPosts.find((p) => p.postTitle === "Tram (planet)")!;
          assert.ok(await store.recordClick(planetTram.postId, "client-1", T0, 60_000));
          assert.equal((await store.recentPosts({ limit: 20, offset: 0, languageIds: null })).length, 7);
          return { blog, planet };
        });

        const steps: Array<[number, number]> = [];
        await rerun(db.location, (_step, done, total) => steps.push([done, total]));
        assert.deepEqual(steps.at(-1), [7, 7], "progress reaches every stored post");

        await withStoreAt(db.location, async (store) => {
          const recent = await store.recentPosts({ limit: 20, offset: 0, languageIds: null });
          assert.deepEqual(
            recent.map((p) => [p.postTitle, p.feedId]),
            [
              ["Tram", ids.blog],
              ["Garden", ids.blog],
              ["Harbour", ids.blog],
              // Same date: ties by id descending.
              ["Status", ids.planet],
              ["Status", ids.blog],
            ],
          );
          assert.equal(recent[0]!.clicks, 1, "the copy's click counts for the story");
          const also = await store.alsoIn(recent.map((p) => p.postId));
          assert.deepEqual([...also.keys()].sort(), [recent[0]!.postId, recent[1]!.postId].sort());
          const planetList = await store.postsByFeed({ feedId: ids.planet, limit: 10, offset: 0 });
          assert.deepEqual(
            planetList.map((p) => p.postTitle),
            ["Tram", "Garden", "Status"],
          );
          assert.equal((await store.feedById(ids.planet))?.postCount, 3);
          assert.deepEqual((await store.storyMerges(10)).map((m) => [m.copyGuid, m.mergedBy]).sort(), [
            ["b1", "link"],
            ["b2", "text"],
          ]);
          // Popular posts see the story once, with the click.
          const popular = await store.mostPopularPosts({
            since: T0 - 24 * HOUR,
            limit: 10,
            categoryId: null,
          });
          assert.deepEqual(
            popular.map((p) => [p.postTitle, p.periodClicks]),
            [["Tram", 1]],
          );
        });
      } finally {
        db.drop();
      }
    });
  });
}

const postgres = postgresBackend();
after(() => postgres.stop());
migrationSuite(sqliteBackend, sqliteRerun);
migrationSuite(postgres, postgresRerun);
