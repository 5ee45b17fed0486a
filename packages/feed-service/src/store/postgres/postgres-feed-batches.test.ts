/**
 * Several feeds' refreshes in one transaction on PostgreSQL (applyFeedUpdates, the new posts of a
 * batch held for one INSERT): the same refreshes written one by one (applyFeedUpdate) into one
 * database and in batches into another must leave every table the same, row for row, ids
 * included: the roll-ups, the counted searches (a smart category and two common words), the
 * feeds' counts, the story keys and copies. The refreshes hold what a held post must be written
 * before: copies of a story another feed of the same batch brings (by link and by text), a feed
 * twice in a batch (its second refresh re-writing a post of its first), a copy of a post of the
 * same refresh, a rewritten post (a feed recount). A feed whose writes fail, and a post the
 * held insert refuses, fail alone, with the error a refresh of their own meets.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { incoming, T0 } from "../../test-support/store-contract/contract-fixture.js";
import { longStoryTexts, storyPost, storyTexts } from "../../test-support/story-posts.js";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import type { FeedUpdate, FeedUpdateOutcome, IncomingPost } from "../store.js";
import { openPostgresPool } from "./postgres-connection.js";
import { syncCountedWords } from "./postgres-counted-words.js";
import { openPostgresStore, type PostgresStore } from "./postgres-store.js";

const HOUR = 3_600_000;
const FEEDS = 6;
const WORDS = ["amber", "birch", "cedar", "dune"];

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(() => server?.stop());

/** A post of feed `f` with some of WORDS in its title (seeded by its number). */
function plain(f: number, n: number, fields: Partial<IncomingPost> = {}): IncomingPost {
  const words = WORDS.filter((_, i) => (n * 7 + f * 3 + i * 5) % (i + 2) !== 0);
  return incoming(`f${f}-p${n}`, {
    title: `${words.join(" ")} ${n}`,
    excerpt: `note ${f} ${n}`,
    publishedAt: T0 - ((n * 37 + f * 11) % 400) * HOUR,
    ...fields,
  });
}

type Refresh = { feed: number; posts: IncomingPost[] };

const full = (first: number): Refresh[] =>
  Array.from({ length: FEEDS }, (_, f) => ({
    feed: f,
    posts: Array.from({ length: 5 }, (_, i) => plain(f, first + i)),
  }));

/** Batches that all succeed; `feed` is an index into the feeds. */
const clean = (): Refresh[][] => [
  full(0),
  [
    // A story by link in feed 0, its copy by link in feed 1 and by text in feed 2, same batch.
    {
      feed: 0,
      posts: [storyPost("tram-0", "https://news.test/tram", "Tram line", longStoryTexts.tram, T0 - HOUR)],
    },
    { feed: 3, posts: [plain(3, 50)] },
    {
      feed: 1,
      posts: [
        storyPost(
          "tram-1",
          "https://news.test/tram?utm_source=x",
          "Tram",
          longStoryTexts.tram,
          T0 - 2 * HOUR,
        ),
        plain(1, 50),
      ],
    },
    {
      feed: 2,
      posts: [
        storyPost("tram-2", "https://other.test/tram-story", "The tram", longStoryTexts.tram, T0 - HOUR),
        plain(2, 50),
      ],
    },
    // The same feed twice: its second refresh re-writes a post of its first and adds one.
    { feed: 4, posts: [plain(4, 50), plain(4, 51)] },
    { feed: 5, posts: [plain(5, 50)] },
    { feed: 4, posts: [plain(4, 50, { title: "birch rewritten" }), plain(4, 52)] },
    // A copy of a post of the same refresh (the same text under another guid and link).
    {
      feed: 5,
      posts: [
        storyPost("garden-a", "https://g.test/a", "Garden", longStoryTexts.garden, T0 - 3 * HOUR),
        storyPost("garden-b", "https://g.test/b", "Garden path", longStoryTexts.garden, T0 - 3 * HOUR),
      ],
    },
  ],
  [
    { feed: 1, posts: [plain(1, 60)] },
    // A stored post re-dated (a rewrite: the feed is counted again), new posts around it.
    { feed: 0, posts: [plain(0, 1, { publishedAt: T0 - 900 * HOUR }), plain(0, 60)] },
    { feed: 2, posts: [plain(2, 60)] },
  ],
  // A copy by link alone (texts too short for a print), then by text alone, each in a batch of its own.
  [
    {
      feed: 0,
      posts: [storyPost("quay-0", "https://port.test/quay", "Quay", "A note on the quay.", T0 - HOUR)],
    },
    {
      feed: 1,
      posts: [
        storyPost("quay-1", "https://port.test/quay?utm_source=x", "Quay again", "Another note.", T0 - HOUR),
      ],
    },
  ],
  [
    {
      feed: 2,
      posts: [storyPost("harbour-2", "https://h.test/2", "Harbour", storyTexts.harbour, T0 - 5 * HOUR)],
    },
    {
      feed: 3,
      posts: [storyPost("harbour-3", "https://h.test/3", "Harbour news", storyTexts.harbour, T0 - 5 * HOUR)],
    },
  ],
  full(100),
];

/** Batches with a feed that fails (-1: a feed that does not exist; a NUL byte the server refuses). */
const failing = (): Refresh[][] => [
  [
    { feed: 0, posts: [plain(0, 2, { publishedAt: T0 - 901 * HOUR }), plain(0, 80)] },
    { feed: 1, posts: [plain(1, 80)] },
    { feed: -1, posts: [plain(9, 1)] },
    { feed: 2, posts: [plain(2, 80)] },
  ],
  [
    { feed: 3, posts: [plain(3, 80)] },
    { feed: 4, posts: [plain(4, 80, { excerpt: "bad \u0000 byte" })] },
    { feed: 5, posts: [plain(5, 80)] },
    { feed: 0, posts: [plain(0, 81)] },
  ],
  full(200),
];

/** Every table's rows, sorted as text, by table. */
async function tables(pool: pg.Pool): Promise<Map<string, string[]>> {
  const names = (
    await pool.query<{ t: string }>(
      "SELECT tablename AS t FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations' ORDER BY 1",
    )
  ).rows.map((r) => r.t);
  const out = new Map<string, string[]>();
  for (const t of names) {
    const { rows } = await pool.query<{ r: string }>(`SELECT x::text AS r FROM "${t}" x ORDER BY 1`);
    out.set(
      t,
      rows.map((r) => r.r),
    );
  }
  return out;
}

/** A database with the feeds, a smart category and two counted common words. */
async function setUp(name: string): Promise<{ store: PostgresStore; pool: pg.Pool; feeds: number[] }> {
  const url = await server.createDatabase(name);
  const store = await openPostgresStore({ url });
  const pool = await openPostgresPool({ url });
  const feeds: number[] = [];
  for (let f = 0; f < FEEDS; f++)
    feeds.push((await store.addFeed({ feedUrl: `https://f${f}.test/rss`, feedName: `Feed ${f}` })).feedId);
  for (let f = 0; f < FEEDS; f++)
    await store.applyFeedUpdate(feeds[f]!, {
      fetchState: {},
      posts: Array.from({ length: 30 }, (_, n) => plain(f, 200 + n)),
    });
  await store.addSmartCategory({
    name: "Amber birch",
    query: "amber birch",
    key: "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
  });
  await pool.query("ANALYZE posts");
  assert.ok((await syncCountedWords(pool, { matches: 20, most: 2 })) >= 1);
  return { store, pool, feeds };
}

const code = (error: unknown) => (error as { code?: string }).code;

describe("postgres refreshes of several feeds in one transaction", () => {
  let one: Awaited<ReturnType<typeof setUp>>;
  let batched: Awaited<ReturnType<typeof setUp>>;
  before(async () => {
    one = await setUp("batch_one");
    batched = await setUp("batch_many");
  });
  after(async () => {
    for (const db of [one, batched]) {
      await db?.pool.end();
      await db?.store.close();
    }
  });

  /** Writes `batches` one by one into `one` and batch by batch into `batched`; the outcomes must agree. */
  async function writeBoth(batches: Refresh[][]): Promise<void> {
    const feedOf = (db: typeof one, f: number) => (f < 0 ? 999_999 : db.feeds[f]!);
    for (const batch of batches) {
      const expected: FeedUpdateOutcome[] = [];
      for (const r of batch) {
        try {
          expected.push({
            ok: true,
            result: await one.store.applyFeedUpdate(feedOf(one, r.feed), update(r.posts)),
          });
        } catch (error) {
          expected.push({ ok: false, error });
        }
      }
      const got = await batched.store.applyFeedUpdates(
        batch.map((r) => ({ feedId: feedOf(batched, r.feed), update: update(r.posts) })),
      );
      assert.deepEqual(
        got.map((o) => (o.ok ? o.result : code(o.error))),
        expected.map((o) => (o.ok ? o.result : code(o.error))),
      );
    }
  }

  it("leaves every table as the same refreshes written one by one, row for row", async () => {
    await writeBoth(clean());
    const [a, b] = [await tables(one.pool), await tables(batched.pool)];
    assert.deepEqual([...b.keys()], [...a.keys()]);
    for (const [t, rows] of a) assert.deepEqual(b.get(t), rows, `table ${t}`);
    // The batches did write what the checks are about.
    const copies = (await one.pool.query<{ guid: string }>("SELECT guid FROM story_copies ORDER BY 1")).rows;
    assert.deepEqual(
      copies.map((c) => c.guid),
      ["garden-b", "harbour-3", "quay-1", "tram-1", "tram-2"],
      "copies stored",
    );
    const kinds = await one.pool.query<{ lexemes: number; all: number }>(
      "SELECT count(lexeme)::int AS lexemes, count(*)::int AS all FROM counted_searches",
    );
    assert.ok(
      kinds.rows[0]!.lexemes >= 2 && kinds.rows[0]!.all > kinds.rows[0]!.lexemes,
      "words and a phrase counted",
    );
    assert.ok(a.get("search_days")!.length > 0, "counted searches counted");
  });

  it("fails a feed alone, with its own error, and keeps the others' posts and counts", async () => {
    await writeBoth(failing());
    // A batch rolled back and written again leaves a gap in the posts' ids (an identity value is
    // never given back): the posts compared without them, and the counts that hold no post id.
    for (const q of [
      "SELECT (to_jsonb(p) - 'id')::text AS r FROM posts p ORDER BY 1",
      "SELECT f::text AS r FROM feeds f ORDER BY 1",
      "SELECT d::text AS r FROM search_days d ORDER BY 1",
      "SELECT d::text AS r FROM scope_days d ORDER BY 1",
    ]) {
      const [a, b] = [(await one.pool.query(q)).rows, (await batched.pool.query(q)).rows];
      assert.ok(a.length > 0);
      assert.deepEqual(b, a, q);
    }
    const failed = await one.pool.query("SELECT count(*)::int AS n FROM posts WHERE guid = 'f4-p80'");
    assert.equal(failed.rows[0].n, 0);
  });

  it("writes a batch's new posts in one insert: the posts' statement triggers run once", async () => {
    await batched.pool.query("CREATE TABLE IF NOT EXISTS insert_statements (n int)");
    await batched.pool.query(`CREATE OR REPLACE FUNCTION count_insert_statement() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO insert_statements VALUES (1); RETURN NULL; END $$`);
    await batched.pool.query(
      "CREATE TRIGGER count_insert_statement AFTER INSERT ON posts FOR EACH STATEMENT EXECUTE FUNCTION count_insert_statement()",
    );
    try {
      const got = await batched.store.applyFeedUpdates(
        batched.feeds.map((feedId, f) => ({ feedId, update: update([plain(f, 300), plain(f, 301)]) })),
      );
      assert.ok(got.every((o) => o.ok));
      const { n } = (await batched.pool.query("SELECT count(*)::int AS n FROM insert_statements")).rows[0];
      assert.equal(n, 1);
    } finally {
      await batched.pool.query("DROP TRIGGER count_insert_statement ON posts");
      await batched.pool.query("DROP TABLE insert_statements");
    }
  });
});

function update(posts: IncomingPost[]): FeedUpdate {
  return { fetchState: {}, posts };
}
