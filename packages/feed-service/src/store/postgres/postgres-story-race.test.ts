/**
 * One story once under concurrent refreshes on a real PostgreSQL server: three feeds store copies
 * of one story (its link with tracking parameters; the same text under other links) in three
 * transactions at once, and the story must be stored once with two copies, as when the refreshes
 * run one after another (SQLite's single writer). To make the race certain, not likely, a fourth
 * connection holds `posts` in SHARE mode, which lets every refresh read but stops it at its first
 * insert; it lets go only once every refresh waits for a lock.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { storyKeys } from "../../dedupe/story-keys.js";
import { incoming, T0 } from "../../test-support/store-contract/contract-fixture.js";
import { longStoryTexts } from "../../test-support/story-posts.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import type { IncomingPost } from "../store.js";
import { openPostgresStore } from "./postgres-store.js";
import { storyClaimSchema, storyClaimsOf } from "./postgres-story-locks.js";

const FEEDS = 3;
const HOUR = 3_600_000;

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(() => server?.stop());

/**
 * The database's backends waiting for a lock, and on what (`relation`, `transactionid`, `tuple`),
 * seen from a connection outside any transaction (a transaction keeps its first view of
 * pg_stat_activity until it ends).
 */
async function waiting(watcher: pg.Client): Promise<string[]> {
  const { rows } = await watcher.query<{ wait_event: string }>(
    `SELECT wait_event FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
  );
  return rows.map((r) => r.wait_event).sort();
}

/**
 * Feed i's refresh stores `postOf(i)`, all refreshes at once, held at their first insert until all
 * wait; returns the store's posts and merges, what the refreshes waited on when let go, and the
 * claims left behind once they committed.
 */
async function raceRefreshes(name: string, postOf: (feed: number) => IncomingPost | IncomingPost[]) {
  const url = await server.createDatabase(name);
  const store = await openPostgresStore({ url, poolSize: FEEDS + 2 });
  const blocker = new pg.Client({ connectionString: url });
  const watcher = new pg.Client({ connectionString: url });
  await blocker.connect();
  await watcher.connect();
  try {
    const feeds: number[] = [];
    for (let i = 0; i < FEEDS; i++) {
      feeds.push(
        (await store.addFeed({ feedUrl: `https://feed${i}.test/rss`, feedName: `Feed ${i}` })).feedId,
      );
    }
    await blocker.query("BEGIN");
    await blocker.query("LOCK TABLE posts IN SHARE MODE");
    const refreshes = feeds.map((feedId, i) =>
      store.applyFeedUpdate(feedId, { fetchState: {}, posts: [postOf(i)].flat() }),
    );
    // Handled now, awaited below: a failed wait must not leave them unhandled.
    for (const r of refreshes) r.catch(() => {});
    let waits: string[] = [];
    for (const deadline = Date.now() + 20_000; waits.length < FEEDS; ) {
      assert.ok(Date.now() < deadline, `the refreshes never all waited (${waits.join(", ")})`);
      await new Promise((r) => setTimeout(r, 20));
      waits = await waiting(watcher);
    }
    await blocker.query("COMMIT");
    await Promise.all(refreshes);
    const posts = await store.recentPosts({ limit: 1000, offset: 0, languageIds: null });
    const merges = await store.storyMerges(100);
    const counts = (await store.adminFeeds()).map((f) => f.postCount);
    const left = (await watcher.query<{ n: number }>("SELECT count(*)::int AS n FROM story_key_claims"))
      .rows[0]!.n;
    return { posts, merges, counts, waits, left };
  } finally {
    await blocker.end();
    await watcher.end();
    await store.close();
  }
}

describe("copies stored by concurrent refreshes (PostgreSQL)", () => {
  it("the same link with tracking parameters from three feeds at once is one story", async () => {
    const link = "https://news.test/2026/01/tram-line";
    const { posts, merges, counts, waits, left } = await raceRefreshes("race_link", (i) => {
      const own = i === 0 ? link : `${link}?utm_source=feed${i}&utm_medium=rss`;
      // Short, different texts: only the link can make them one story.
      return incoming(`tram-${i}`, { link: own, storyLink: own, title: `Tram ${i}`, seenAt: T0 + i * HOUR });
    });
    assert.equal(posts.length, 1, `one post, not ${posts.map((p) => p.postLink).join(", ")}`);
    assert.equal(merges.length, FEEDS - 1);
    assert.ok(merges.every((m) => m.mergedBy === "link" && m.storyId === posts[0]!.postId));
    assert.deepEqual(counts, [1, 1, 1], "each feed carries the story once");
    // The refresh that took the story's key first waited at its insert; the others for its key.
    assert.equal(waits.filter((w) => w === "relation").length, 1, waits.join(", "));
    assert.equal(left, 0, "every refresh deleted its claims before it committed");
  });

  it("the same text under three links from three feeds at once is one story", async () => {
    const { posts, merges, counts } = await raceRefreshes("race_text", (i) => {
      const own = `https://site${i}.test/posts/${100 + i}`;
      return incoming(`text-${i}`, {
        link: own,
        storyLink: own,
        title: "The tram crosses the river",
        excerpt: longStoryTexts.tram,
        seenAt: T0 + i * HOUR,
      });
    });
    assert.equal(posts.length, 1, `one post, not ${posts.map((p) => p.postLink).join(", ")}`);
    assert.equal(merges.length, FEEDS - 1);
    assert.ok(merges.every((m) => m.mergedBy === "text" && m.storyId === posts[0]!.postId));
    assert.deepEqual(counts, [1, 1, 1]);
  });

  it("different stories stored at once do not wait for each other", async () => {
    const { posts, merges, waits } = await raceRefreshes("race_apart", (i) =>
      incoming(`apart-${i}`, {
        link: `https://site${i}.test/posts/${i}`,
        storyLink: `https://site${i}.test/posts/${i}`,
        title: `Story ${i}`,
        // Forty words of their own each: texts long enough to have bands, none shared.
        excerpt: Array.from({ length: 40 }, (_, w) => `word${i}n${w}`).join(" "),
      }),
    );
    assert.equal(posts.length, FEEDS);
    assert.equal(merges.length, 0);
    // All three reached their insert together: none waited for another's story keys.
    assert.deepEqual(waits, ["relation", "relation", "relation"]);
  });

  it("first fetches of 50 different stories each (~450 keys) at once do not wait for each other", async () => {
    const fetchOf = (i: number) =>
      Array.from({ length: 50 }, (_, n) =>
        incoming(`wide-${i}-${n}`, {
          link: `https://site${i}.test/posts/${n}`,
          storyLink: `https://site${i}.test/posts/${n}`,
          title: `Story ${i} ${n}`,
          excerpt: Array.from({ length: 40 }, (_, w) => `word${i}x${n}y${w}`).join(" "),
        }),
      );
    assert.equal(storyClaimsOf(fetchOf(0).map(storyKeys)).length, 450);
    const { posts, merges, waits, left } = await raceRefreshes("race_wide", fetchOf);
    assert.equal(posts.length, FEEDS * 50);
    assert.equal(merges.length, 0);
    // Hashed into 65,536 lock rows, two sets of 450 keys share one with a probability near 95%;
    // claimed by key, only equal keys wait: all three reached their insert together.
    assert.deepEqual(waits, ["relation", "relation", "relation"]);
    assert.equal(left, 0);
  });

  it("claims each key once, in order, links apart from bands, and migration 28 runs again", async () => {
    const post = incoming("keys", {
      storyLink: "https://news.test/a",
      title: "Tram",
      excerpt: longStoryTexts.tram,
    });
    const claims = storyClaimsOf([storyKeys(post), storyKeys(post)]).map(BigInt);
    assert.equal(claims.length, 9, `${claims}`);
    assert.deepEqual(
      claims,
      [...new Set(claims)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    // Eight bands below zero, the link at or above it, all within a bigint.
    assert.equal(claims.filter((c) => c < 0n && c >= -(1n << 32n)).length, 8);
    assert.ok(claims[8]! >= 0n && claims[8]! < 1n << 63n);
    const url = await server.createDatabase("race_rerun");
    const store = await openPostgresStore({ url });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(storyClaimSchema);
      const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM story_key_claims");
      assert.deepEqual(rows[0], { n: 0 });
    } finally {
      await client.end();
      await store.close();
    }
  });
});
