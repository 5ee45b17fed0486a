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
import { openStore } from "../store/open-store.js";
import { inTransaction } from "../store/postgres/postgres-connection.js";
import { mergeStoredCopies as mergePostgres } from "../store/postgres/postgres-story-migration.js";
import { storySchema as postgresSchema } from "../store/postgres/postgres-story-schema.js";
import { mergeStoredCopies as mergeSqlite } from "../store/sqlite/sqlite-story-migration.js";
import { storySchema as sqliteSchema } from "../store/sqlite/sqlite-story-schema.js";
import type { IncomingPost, Store } from "../store/store.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";

const T0 = Date.UTC(2026, 0, 10);
const HOUR = 3_600_000;
const drop = "DROP TABLE story_copies; DROP TABLE story_bands; DROP TABLE story_keys;";

const texts = [
  "The city council voted on Tuesday to extend the tram line across the river, after two years of public hearings in which residents of the northern districts argued that buses could no longer carry the commuters.",
  "Volunteers planted four hundred trees along the old railway embankment this weekend, turning a strip of gravel and weeds into the first part of a garden path that will link the market square with the lake.",
  "Ten years ago the harbour was a place of empty warehouses and broken cranes; today the old customs house holds a museum, the piers host a night market and ferries carry more visitors than fishing boats.",
];

function post(guid: string, link: string, title: string, excerpt: string, hoursAgo: number): IncomingPost {
  return {
    guid,
    link,
    title,
    excerpt,
    content: `<p>${excerpt}</p>`,
    publishedAt: T0 - hoursAgo * HOUR,
    updatedAt: null,
    seenAt: T0,
    languageId: 1,
    storyLink: link,
  };
}

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

async function withStore<T>(location: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(location);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

function migrationSuite(backend: TestBackend, rerun: Rerun): void {
  describe(`the merging migration (${backend.name})`, () => {
    it("merges the copies already stored, moves their clicks, keeps every feed's list whole", async () => {
      const db = await backend.newDatabase();
      try {
        const ids = await withStore(db.location, async (store) => {
          const blog = (await store.addFeed({ feedUrl: "https://blog.example/feed", feedName: "Blog" }))
            .feedId;
          const planet = (await store.addFeed({ feedUrl: "https://planet.example/feed", feedName: "Planet" }))
            .feedId;
          await store.applyFeedUpdate(blog, {
            fetchState: {},
            posts: [
              post("a1", "https://blog.example/tram", "Tram", texts[0]!, 1),
              post("a2", "https://blog.example/garden", "Garden", texts[1]!, 2),
              post("a3", "https://blog.example/harbour", "Harbour", texts[2]!, 3),
              post("a4", "https://blog.example/status", "Status", "Back online.", 4),
            ],
          });
          await store.applyFeedUpdate(planet, {
            fetchState: {},
            posts: [
              post("b1", "https://blog.example/tram?utm_source=planet", "Tram (planet)", "A note.", 1),
              post("b2", "https://planet.example/garden-copy", "Garden", texts[1]!, 2),
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

        await withStore(db.location, async (store) => {
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
