/**
 * The plans of fts5-operators.ts that read the newest hits through the full-text index (feed:
 * and -feed: in the feed_name column, after:/before: as a range of date keys), each reached on
 * purpose with a small pool and term sample, and the walk they give way to: every one must give
 * exactly the posts a brute-force reading of the same posts gives.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { resolveSearchFilters } from "../../operations/search-filters.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { lcgDraws } from "../../test-support/seeded-draws.js";
import {
  mostClickedHitsPage,
  type OperatorBounds,
  planOf,
  rankedNewestPage,
  searchWithOperators,
} from "./fts5-operators.js";
import { StatementCache } from "./sqlite-connection.js";
import { migrateSqlite } from "./sqlite-migrations.js";
import { SqliteStore } from "./sqlite-store.js";

const START = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const POSTS = 900;
/** A pool of 60 of the newest matches, term counts sampled among the newest 200 posts. */
const SMALL: OperatorBounds = { relevancePool: 60, termSamplePosts: 200 };
const FEEDS = ["Frontend Weekly", "Backend Daily", "Misc News"];

interface Written {
  title: string;
  feed: string;
  date: number;
  words: Set<string>;
}

describe("search operators on SQLite: the newest hits through the index", () => {
  const db = new Database(":memory:");
  const stmts = new StatementCache(db);
  const store = new SqliteStore(db);
  const written: Written[] = [];
  before(async () => {
    migrateSqlite(db);
    const feeds = [];
    for (const name of FEEDS) {
      feeds.push(
        await store.addFeed({ feedUrl: `https://feeds.test/${name.split(" ")[0]}`, feedName: name }),
      );
    }
    // A fixed pseudo-random mix: feeds, words, and posts stored out of date order.
    const next = lcgDraws(7);
    const order = Array.from({ length: POSTS }, (_, i) => i).sort(() => next() - 0.5);
    for (const i of order) {
      const feed = Math.floor(next() * FEEDS.length);
      const words = ["item", `n${i}`];
      if (next() < 0.7) words.push("common");
      if (next() < 0.1) words.push("rare");
      const title = words.join(" ");
      const date = START + i * 7 * MINUTE;
      written.push({ title, feed: FEEDS[feed]!, date, words: new Set(words) });
      await store.applyFeedUpdate(feeds[feed]!.feedId, {
        fetchState: {},
        posts: [
          {
            guid: `p${i}`,
            link: `https://posts.test/${i}`,
            title,
            excerpt: "",
            content: "<p>…</p>",
            publishedAt: date,
            updatedAt: null,
            seenAt: START,
            languageId: 1,
          },
        ],
      });
    }
    // Clicks on a fifth of the posts, one to three each.
    const ids = db.prepare("SELECT id FROM posts ORDER BY id").pluck().all() as number[];
    for (const id of ids) {
      if (next() >= 0.2) continue;
      const times = 1 + Math.floor(next() * 3);
      for (let c = 0; c < times; c++) await store.insertClick(id, `client-${c}`, START + c);
    }
  });
  after(() => store.close());

  /** The titles that match, newest first (dates are distinct), as a brute-force reading finds them. */
  const matching = (test: (p: Written) => boolean) =>
    written
      .filter(test)
      .sort((a, b) => b.date - a.date)
      .map((p) => p.title);
  const query = async (text: string) => resolveSearchFilters(store, parseSearchQuery(text));
  const titlesOf = (ids: readonly number[]) => {
    const byId = new Map(
      (db.prepare("SELECT id, title FROM posts").raw().all() as Array<[number, string]>).map(([id, t]) => [
        id,
        t,
      ]),
    );
    return ids.map((id) => byId.get(id)!);
  };
  const dayAt = (i: number) => new Date(START + i * 7 * MINUTE).toISOString().slice(0, 10);
  const fromDay = (day: string) => Date.parse(`${day}T00:00:00Z`);

  /**
   * `indexAnswers`: relevance ranks through the index (rankedNewestPage); `clickedAnswers`: clicks
   * order through the word plans' clicked walk, its window of hits passing the filters often
   * enough (mostClickedHitsPage), else the walk.
   */
  const cases: Array<{
    text: string;
    test: (p: Written) => boolean;
    indexAnswers: boolean;
    clickedAnswers: boolean;
  }> = [
    {
      text: "common feed:frontend",
      test: (p) => p.words.has("common") && p.feed === "Frontend Weekly",
      indexAnswers: true,
      clickedAnswers: true,
    },
    {
      text: "common feed:front*",
      test: (p) => p.words.has("common") && p.feed === "Frontend Weekly",
      indexAnswers: true,
      clickedAnswers: true,
    },
    {
      text: `common -feed:frontend after:${dayAt(300)}`,
      test: (p) => p.words.has("common") && p.feed !== "Frontend Weekly" && p.date >= fromDay(dayAt(300)),
      indexAnswers: true,
      clickedAnswers: true,
    },
    {
      text: `common before:${dayAt(700)} feed:"misc news"`,
      test: (p) =>
        p.words.has("common") && p.feed === "Misc News" && p.date < fromDay(dayAt(700)) + 86_400_000,
      indexAnswers: true,
      clickedAnswers: true,
    },
    {
      // Dates around every post: clicks order takes the word plans' way.
      text: "common after:2025-12-31 before:2026-12-31",
      test: (p) => p.words.has("common"),
      indexAnswers: true,
      clickedAnswers: true,
    },
    {
      // Fewer matches than the pool: every hit since that day.
      text: `common after:${dayAt(840)}`,
      test: (p) => p.words.has("common") && p.date >= fromDay(dayAt(840)),
      indexAnswers: true,
      // The last day, a tenth of the posts: the clicked walk reads only that day's keys.
      clickedAnswers: true,
    },
    {
      // A filter inside an OR: only the posts can say, and it rejects most hits.
      text: "common (rare OR feed:misc)",
      test: (p) => p.words.has("common") && (p.words.has("rare") || p.feed === "Misc News"),
      indexAnswers: false,
      // About two hits in five pass: a window of 4 × the page finds it.
      clickedAnswers: true,
    },
    {
      // A prefix and title: beside a date range that leaves posts out.
      text: `title:comm* -feed:misc after:${dayAt(250)}`,
      test: (p) => p.words.has("common") && p.feed !== "Misc News" && p.date >= fromDay(dayAt(250)),
      indexAnswers: true,
      clickedAnswers: true,
    },
  ];

  for (const { text, test, indexAnswers, clickedAnswers } of cases) {
    it(`'${text}': relevance ranks exactly the newest matches, by either plan`, async () => {
      const q = await query(text);
      const expected = matching(test);
      assert.ok(expected.length > 20, "matches enough for the pages below");
      const pool = new Set(expected.slice(0, SMALL.relevancePool));
      const direct = rankedNewestPage(stmts, planOf(q, null), 0, SMALL.relevancePool, SMALL);
      assert.equal(direct !== null, indexAnswers, "which plan answers");
      const page = searchWithOperators(
        stmts,
        { query: q, sort: "relevance", limit: SMALL.relevancePool, offset: 0, languageIds: null },
        SMALL,
      );
      assert.deepEqual(new Set(page.map((p) => p.postTitle)), pool);
      assert.ok(page.every((p, i) => p.score > 0 && (i === 0 || page[i - 1]!.score >= p.score)));
      if (direct !== null)
        assert.deepEqual(
          titlesOf(direct.map(([id]) => id)),
          page.map((p) => p.postTitle),
        );
      // When the index answers every filter, only the page and its score ties are joined to the
      // posts: the same pages as joining the whole pool and checking its filters.
      const plan = planOf(q, null);
      if (plan.indexAnswers) {
        for (const [offset, limit] of [
          [0, SMALL.relevancePool],
          [0, 7],
          [13, 9],
          [SMALL.relevancePool - 3, 10],
        ] as const) {
          const joined = rankedNewestPage(stmts, { ...plan, indexAnswers: false }, offset, limit, SMALL);
          assert.deepEqual(rankedNewestPage(stmts, plan, offset, limit, SMALL), joined, `${offset} ${limit}`);
          // Read in either order (ascending first gives way when more than the pool match).
          for (const walk of ["ascending first", "descending"] as const) {
            assert.deepEqual(
              rankedNewestPage(stmts, plan, offset, limit, SMALL, walk),
              joined,
              `${offset} ${limit} ${walk}`,
            );
          }
        }
      }
      // Pages cut the same ranking; the pool ends at its size.
      const second = searchWithOperators(
        stmts,
        { query: q, sort: "relevance", limit: 20, offset: 20, languageIds: null },
        SMALL,
      );
      assert.deepEqual(
        second.map((p) => p.postTitle),
        page.slice(20, 40).map((p) => p.postTitle),
      );
      const beyond = searchWithOperators(
        stmts,
        { query: q, sort: "relevance", limit: 20, offset: SMALL.relevancePool - 5, languageIds: null },
        SMALL,
      );
      assert.equal(beyond.length, Math.max(0, Math.min(5, expected.length - (SMALL.relevancePool - 5))));
      // Clicks order: most clicked first, ties by id, exactly (from the first page to a later one).
      const byClicks = (
        db.prepare("SELECT title FROM posts ORDER BY clicks DESC, id DESC").pluck().all() as string[]
      ).filter((title) => expected.includes(title));
      assert.ok(byClicks.length === expected.length);
      for (const offset of [0, 15]) {
        const direct = mostClickedHitsPage(stmts, planOf(q, null), offset, 20);
        assert.equal(direct !== null, clickedAnswers, `which plan answers clicks from ${offset}`);
        if (direct !== null) {
          assert.deepEqual(
            titlesOf(direct.map(([id]) => id)),
            byClicks.slice(offset, offset + 20),
            `clicked walk from ${offset}`,
          );
        }
        const clicked = searchWithOperators(stmts, {
          query: q,
          sort: "clicks",
          limit: 20,
          offset,
          languageIds: null,
        });
        assert.deepEqual(
          clicked.map((p) => p.postTitle),
          byClicks.slice(offset, offset + 20),
          `clicks from ${offset}`,
        );
      }
      // Date order: the newest hits first, exactly.
      const dated = searchWithOperators(stmts, {
        query: q,
        sort: "date",
        limit: 20,
        offset: 10,
        languageIds: null,
      });
      assert.deepEqual(
        dated.map((p) => p.postTitle),
        expected.slice(10, 30),
      );
    });
  }

  it("date order finds with the implied terms left out, or reads the whole query and scores on the way", async () => {
    // `title:common common` finds with `title:common` (fts5-implied-terms.ts): a page from the
    // start reads the whole query once, scoring on the way; a deep page finds with the smaller
    // query and scores its own posts after. Either way the posts and their scores are exact.
    for (const text of ["title:common common feed:frontend", `common title:common after:${dayAt(200)}`]) {
      const q = await query(text);
      const plan = planOf(q, null);
      assert.ok(plan.findingShare < 1, `${text} finds with fewer terms`);
      const expected = matching(
        (p) =>
          p.words.has("common") &&
          (text.includes("feed:") ? p.feed === "Frontend Weekly" : p.date >= fromDay(dayAt(200))),
      );
      // Every match ranked: each post's score as relevance gives it.
      const ranked = searchWithOperators(stmts, {
        query: q,
        sort: "relevance",
        limit: 1000,
        offset: 0,
        languageIds: null,
      });
      assert.equal(ranked.length, expected.length);
      const scoreOf = new Map(ranked.map((p) => [p.postTitle, p.score]));
      for (const [offset, limit] of [
        [0, 20],
        [0, 1000],
        [10, 20],
        [expected.length - 30, 5],
        [expected.length - 3, 20],
      ] as const) {
        const page = searchWithOperators(stmts, { query: q, sort: "date", limit, offset, languageIds: null });
        assert.deepEqual(
          page.map((p) => p.postTitle),
          expected.slice(offset, offset + limit),
          `${text} ${offset} ${limit}`,
        );
        for (const p of page) assert.equal(p.score, scoreOf.get(p.postTitle), `${text} ${p.postTitle}`);
      }
    }
  });

  it("feed: alone lists the feed's posts newest first, through the date index or the feed's", async () => {
    // A third of the posts: 20 of them are found sooner down the date index; 1,000 (more than the
    // feed holds) sooner by reading the feed's posts and sorting them.
    const q = await query("feed:frontend");
    const expected = matching((p) => p.feed === "Frontend Weekly");
    for (const [offset, limit] of [
      [0, 20],
      [40, 20],
      [0, 1000],
    ] as const) {
      const page = searchWithOperators(stmts, { query: q, sort: "date", limit, offset, languageIds: null });
      assert.deepEqual(
        page.map((p) => p.postTitle),
        expected.slice(offset, offset + limit),
      );
    }
  });

  it("relevance reads oldest first when the query's own newest hits say few, though its rarest clause says many", async () => {
    // Each statement a search runs, in order (StatementCache.get is called per run).
    const ran: string[] = [];
    const recording = new (class extends StatementCache {
      override get(sql: string): Database.Statement {
        ran.push(sql);
        return super.get(sql);
      }
    })(db);
    const walks = () => {
      const ranked = ran.filter((sql) => sql.includes("h AS MATERIALIZED"));
      return ranked.map((sql) => (/ORDER BY t\.rowid DESC LIMIT/.test(sql) ? "descending" : "ascending"));
    };
    // A pool of 100: `common rare feed:misc` matches fewer, though the sample's count of `rare`
    // alone suggests more within the margin (the Misc feed holds a third of them): read oldest
    // first once. `common item feed:frontend` matches more: newest first at once. Exact either way.
    const bounds: OperatorBounds = { ...SMALL, relevancePool: 100 };
    for (const [text, test, walk] of [
      [
        "common rare feed:misc",
        (p: Written) => p.words.has("common") && p.words.has("rare") && p.feed === "Misc News",
        ["ascending"],
      ],
      [
        "common item feed:frontend",
        (p: Written) => p.words.has("common") && p.feed === "Frontend Weekly",
        ["descending"],
      ],
    ] as const) {
      const q = await query(text);
      const expected = matching(test);
      assert.equal(
        expected.length <= bounds.relevancePool,
        walk[0] === "ascending",
        `${text}: ${expected.length}`,
      );
      const plan = planOf(q, null);
      ran.length = 0;
      const page = rankedNewestPage(recording, plan, 0, bounds.relevancePool, bounds);
      assert.deepEqual(walks(), walk, text);
      assert.deepEqual(
        new Set(titlesOf(page!.map(([id]) => id))),
        new Set(expected.slice(0, bounds.relevancePool)),
      );
      assert.deepEqual(
        page,
        rankedNewestPage(stmts, plan, 0, bounds.relevancePool, bounds, "descending"),
        text,
      );
      for (const [offset, limit] of [
        [0, 7],
        [5, 20],
      ] as const) {
        assert.deepEqual(
          rankedNewestPage(stmts, plan, offset, limit, bounds),
          rankedNewestPage(stmts, plan, offset, limit, bounds, "descending"),
          `${text} ${offset} ${limit}`,
        );
      }
    }
    // A language no post is written in: the newest hits say none, and no walk runs.
    ran.length = 0;
    assert.deepEqual(
      rankedNewestPage(recording, planOf(await query("common item feed:frontend"), [2]), 0, 20, bounds),
      [],
    );
    assert.deepEqual(walks(), []);
  });

  it("feed: narrows the match without weighing in the score: the words' own scores, sampled or counted whole", async () => {
    const q = await query("common feed:frontend");
    const expected = matching((p) => p.words.has("common") && p.feed === "Frontend Weekly");
    for (const bounds of [SMALL, { relevancePool: 60, termSamplePosts: 10 * POSTS }]) {
      const direct = rankedNewestPage(stmts, planOf(q, null), 0, 60, bounds);
      assert.notEqual(direct, null);
      assert.deepEqual(new Set(titlesOf(direct!.map(([id]) => id))), new Set(expected.slice(0, 60)));
      // The same posts scored for `common` alone (a word-only query through the same plan).
      const alone = await query(`common after:${dayAt(0)}`);
      const own = new Map(
        rankedNewestPage(stmts, planOf(alone, null), 0, POSTS, { ...bounds, relevancePool: POSTS }),
      );
      for (const [id, score] of direct!) assert.equal(score, own.get(id), `post ${id}`);
    }
  });
});
