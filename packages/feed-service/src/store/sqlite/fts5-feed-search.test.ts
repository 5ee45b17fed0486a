/**
 * `feed:` with words through the posts by feed's index (schema 24: fts5-feed-index.ts,
 * fts5-feed-search.ts): feeds whose names share tokens, words in every form the parser gives
 * (phrases, OR, exclusions, prefixes, title:), date ranges, every order, pages deep, with a small
 * relevance pool and term sample as well as the store's own. Every page must be the posts a
 * brute-force reading of the same posts gives, and every page and score the one the plans over
 * posts_fts give (the same database with the index dropped). The index itself must hold, after
 * ingest, refreshes, renames, clicks and a feed's removal, exactly the rows a fresh build gives,
 * posts_fts's tokens each under its post's feed, and a re-run of the migration must rebuild it
 * the same.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { resolveSearchFilters } from "../../operations/search-filters.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import type { SearchQuery } from "../../search/search-query.js";
import { analyzeText } from "../../search/text-analyzer.js";
import { lcgDraws } from "../../test-support/seeded-draws.js";
import type { SearchSort } from "../store.js";
import {
  buildFeedIndex,
  FEED_FTS,
  FEED_FTS_DECLARATION,
  FEED_FTS_INSERT,
  feedIndexRow,
} from "./fts5-feed-index.js";
import { perFeedCosts } from "./fts5-feed-search.js";
import { type OperatorBounds, type Plan, searchWithOperators } from "./fts5-operators.js";
import { StatementCache } from "./sqlite-connection.js";
import { forEachIndexRowByKey } from "./sqlite-date-key-migration.js";
import { migrateSqlite } from "./sqlite-migrations.js";
import { FEED_SEGMENT_SEEK_COST_US, FEED_STATEMENTS_BUDGET_US } from "./sqlite-plan-costs.js";
import { segmentCount } from "./sqlite-search-maintenance.js";
import { SqliteStore } from "./sqlite-store.js";

/** The statements' texts a search prepared (which plan ran). */
class RecordingStatements extends StatementCache {
  readonly seen = new Set<string>();
  override get(sql: string): Database.Statement {
    this.seen.add(sql);
    return super.get(sql);
  }
}

const START = Date.UTC(2025, 0, 1);
const HOUR = 3_600_000;
const POSTS = 1_200;
/** Small pool and sample, and the per-feed plan taken whatever the feeds' sizes. */
const SMALL: OperatorBounds = { relevancePool: 60, termSamplePosts: 200, feedStatementUs: 0 };
const STORE: OperatorBounds = { relevancePool: 10_000, termSamplePosts: 32_768 };
/** Names sharing tokens; the feed: words below pick overlapping sets of them. */
const FEEDS = [
  "Tech Blog",
  "Tech News Daily",
  "Daily Blog",
  "Misc",
  "日本 Blog",
  "東京 Tech",
  "Rare Tech Notes",
  // Small feeds sharing a name's words, read several to a statement (fts5-feed-search.ts).
  ...Array.from({ length: 30 }, (_, i) => `Tiny Tech ${i}`),
];
const TINY = FEEDS.filter((name) => name.startsWith("Tiny"));
/** The feeds each feed: word names (by hand, not by the resolver under test). */
const NAMED: Record<string, string[]> = {
  tech: ["Tech Blog", "Tech News Daily", "東京 Tech", "Rare Tech Notes", ...TINY],
  tiny: TINY,
  blog: ["Tech Blog", "Daily Blog", "日本 Blog"],
  daily: ["Tech News Daily", "Daily Blog"],
  日本: ["日本 Blog"],
  notes: ["Rare Tech Notes"],
};
const VOCABULARY = ["common", "common", "common", "alpha", "beta", "rare", "commit", "gamma"];

interface Written {
  id: number;
  feed: string;
  title: string[];
  date: number;
  clicks: number;
}

function holdsPhrase(words: readonly string[], phrase: readonly string[], prefix = false): boolean {
  for (let i = 0; i + phrase.length <= words.length; i++) {
    if (
      phrase.every((w, k) =>
        prefix && k === phrase.length - 1 ? words[i + k]!.startsWith(w) : words[i + k] === w,
      )
    )
      return true;
  }
  return false;
}

/**
 * The words' part of a query, read by brute force over the title's and the feed name's tokens
 * (words match feed names too: spec §4), each column apart, `title:` over the title alone.
 */
function wordsMatch(query: SearchQuery, title: readonly string[], feed: string): boolean {
  const name = analyzeText(feed);
  const term = (t: { words: readonly string[]; prefix?: boolean; titleOnly?: boolean }) =>
    holdsPhrase(title, t.words, t.prefix === true) ||
    (t.titleOnly !== true && holdsPhrase(name, t.words, t.prefix === true));
  return query.clauses.every((clause) => clause.some(term)) && !query.excluded.some((t) => term(t));
}

describe("feed: with words through the posts by feed's index", () => {
  const db = new Database(":memory:");
  const stmts = new StatementCache(db);
  const store = new SqliteStore(db);
  const written: Written[] = [];
  const feedIds = new Map<string, number>();
  before(async () => {
    migrateSqlite(db);
    for (const name of FEEDS) {
      const feed = await store.addFeed({ feedUrl: `https://feeds.test/${feedIds.size}`, feedName: name });
      feedIds.set(name, feed.feedId);
    }
    const next = lcgDraws(31);
    // Posts stored out of date order; feeds of very different sizes (the first takes half).
    const order = Array.from({ length: POSTS }, (_, i) => i).sort(() => next() - 0.5);
    for (const i of order) {
      const r = next();
      // Half to the first feed, a twentieth to the tiny ones (two or so each), the rest to the others.
      const others = FEEDS.length - 1 - TINY.length;
      const feed =
        r < 0.5
          ? FEEDS[0]!
          : r < 0.95
            ? FEEDS[1 + Math.floor(next() * others)]!
            : TINY[Math.floor(next() * TINY.length)]!;
      const title = [`n${i}`];
      for (let k = 0; k < 1 + Math.floor(next() * 4); k++)
        title.push(VOCABULARY[Math.floor(next() * VOCABULARY.length)]!);
      const date = START + i * HOUR;
      await store.applyFeedUpdate(feedIds.get(feed)!, {
        fetchState: {},
        posts: [
          {
            guid: `p${i}`,
            link: `https://posts.test/${i}`,
            title: title.join(" "),
            excerpt: "",
            content: "",
            publishedAt: date,
            updatedAt: null,
            seenAt: START,
            languageId: 1,
          },
        ],
      });
    }
    const rows = db
      .prepare("SELECT p.id, f.name, p.title, p.post_date FROM posts p JOIN feeds f ON f.id = p.feed_id")
      .raw()
      .all() as Array<[number, string, string, number]>;
    for (const [id, feed, title, date] of rows)
      written.push({ id, feed, title: title.split(" "), date, clicks: 0 });
    // Clicks on a quarter of the posts, one to four each, so clicks order has ties and runs.
    for (const p of written) {
      if (next() >= 0.25) continue;
      const times = 1 + Math.floor(next() * 4);
      for (let c = 0; c < times; c++) await store.insertClick(p.id, `client-${c}`, START + c);
      p.clicks = times;
    }
  });
  after(() => store.close());

  const day = (hours: number) => new Date(START + hours * HOUR).toISOString().slice(0, 10);
  const texts: string[] = [];
  for (const feed of Object.keys(NAMED)) {
    for (const words of [
      "common",
      "common alpha",
      "alpha OR beta",
      "common -rare",
      "title:common",
      "comm*",
      "comm* alpha",
      "al* -rare title:common",
      '"common alpha"',
      "rare",
    ]) {
      texts.push(`${words} feed:${feed}`);
    }
    texts.push(
      `feed:${feed} common after:${day(300)}`,
      `common feed:${feed} before:${day(900)} after:${day(100)}`,
    );
  }

  const expected = (text: string, sort: SearchSort, query: SearchQuery): number[] => {
    const feedWord = /feed:(\S+)/u.exec(text)![1]!;
    const from = /after:(\S+)/u.exec(text)?.[1];
    const until = /before:(\S+)/u.exec(text)?.[1];
    const hits = written.filter(
      (p) =>
        NAMED[feedWord]!.includes(p.feed) &&
        wordsMatch(query, p.title, p.feed) &&
        (from === undefined || p.date >= Date.parse(`${from}T00:00:00Z`)) &&
        (until === undefined || p.date < Date.parse(`${until}T00:00:00Z`) + 86_400_000),
    );
    hits.sort(
      sort === "clicks"
        ? (a, b) => b.clicks - a.clicks || b.id - a.id
        : (a, b) => b.date - a.date || b.id - a.id,
    );
    return hits.map((p) => p.id);
  };

  const pages = [
    { offset: 0, limit: 10 },
    { offset: 25, limit: 7 },
    { offset: 0, limit: 1000 },
    { offset: 55, limit: 20 },
  ];

  it("gives the brute-force posts and posts_fts's pages and scores, in every order", async () => {
    const byIndex = new Map<string, Array<[number, number]>>();
    const run = async () => {
      const out = new Map<string, Array<[number, number]>>();
      for (const text of texts) {
        const query = await resolveSearchFilters(store, parseSearchQuery(text));
        for (const sort of ["relevance", "date", "clicks"] as const) {
          for (const bounds of [SMALL, STORE]) {
            for (const languageIds of [null, [1]]) {
              for (const { offset, limit } of pages) {
                const found = searchWithOperators(stmts, { query, sort, offset, limit, languageIds }, bounds);
                out.set(
                  `${text} | ${sort} | ${bounds.relevancePool} | ${languageIds} | ${offset},${limit}`,
                  found.map((p) => [p.postId, p.score]),
                );
              }
            }
          }
        }
      }
      return out;
    };
    for (const [key, value] of await run()) byIndex.set(key, value);
    // Brute force: date and clicks pages exactly; relevance pages are the right posts, and every
    // match when the pool holds them all.
    let checked = 0;
    for (const [key, page] of byIndex) {
      const [text, sort, pool, , range] = key.split(" | ");
      const [offset, limit] = range!.split(",").map(Number) as [number, number];
      const query = parseSearchQuery(text!);
      const all = expected(text!, sort as SearchSort, query);
      const ids = page.map(([id]) => id);
      if (sort !== "relevance") {
        assert.deepEqual(ids, all.slice(offset, offset + limit), key);
      } else {
        const newest = new Set(all.slice(0, Number(pool)));
        assert.ok(
          ids.every((id) => newest.has(id)),
          key,
        );
        assert.equal(ids.length, Math.max(0, Math.min(limit, newest.size - offset)), key);
      }
      assert.ok(
        page.every(([, score]) => score > 0),
        key,
      );
      checked++;
    }
    assert.ok(checked > 1_000);
    // The plans over posts_fts, on the same posts, give the very same pages and scores.
    db.exec(`DROP TABLE ${FEED_FTS}`);
    try {
      const byWords = await run();
      for (const [key, page] of byIndex) assert.deepEqual(page, byWords.get(key), key);
    } finally {
      db.exec(FEED_FTS_DECLARATION);
      buildFeedIndex(db, () => {});
    }
  });

  it("pages deep by date and by clicks as a full sort does: the first, middle, last and past-the-end pages", async () => {
    // Past the first page every hit before it is skipped (one statement's rowids, posts_fts's,
    // the clicked posts' index's) rather than read: each page the brute force's, with each plan.
    const deep = Object.keys(NAMED).flatMap((feed) => [
      `common feed:${feed}`,
      `feed:${feed} common after:${day(300)}`,
      `common feed:${feed} before:${day(900)} after:${day(100)}`,
      `common alpha feed:${feed}`,
    ]);
    let compared = 0;
    for (const text of deep) {
      const query = await resolveSearchFilters(store, parseSearchQuery(text));
      for (const sort of ["date", "clicks"] as const) {
        const all = expected(text, sort, query);
        const n = all.length;
        for (const offset of [0, 1, Math.floor(n / 2), Math.max(0, n - 3), n]) {
          for (const bounds of [SMALL, STORE]) {
            for (const languageIds of [null, [1]]) {
              const found = searchWithOperators(
                stmts,
                { query, sort, offset, limit: 7, languageIds },
                bounds,
              );
              assert.deepEqual(
                found.map((p) => p.postId),
                all.slice(offset, offset + 7),
                `${text} | ${sort} | ${bounds.relevancePool} | ${languageIds} | ${offset}`,
              );
              assert.ok(found.every((p) => p.score > 0));
              compared += found.length;
            }
          }
        }
      }
    }
    assert.ok(compared > 1_000, `only ${compared} posts compared`);
  });

  it("weighs the per-feed plan's seeks by its index's segments, posts_fts's plan answering past them", async () => {
    // The index written a post a transaction, without automerge, as an ingest leaves it spread.
    db.exec(`DROP TABLE ${FEED_FTS}; ${FEED_FTS_DECLARATION}`);
    db.exec(`INSERT INTO ${FEED_FTS} (${FEED_FTS}, rank) VALUES ('automerge', 0)`);
    const insert = db.prepare(FEED_FTS_INSERT);
    forEachIndexRowByKey(
      db,
      "spread",
      () => {},
      (row, feedId) => insert.run(...feedIndexRow(row, feedId)),
    );
    const segments = segmentCount(stmts, FEED_FTS);
    assert.ok(segments > 1, `${segments} segments`);
    const query = await resolveSearchFilters(store, parseSearchQuery("rare feed:tech"));
    const recorded = new RecordingStatements(db);
    const page = (feedStatementUs: number) => {
      recorded.seen.clear();
      const rows = searchWithOperators(
        recorded,
        { query, sort: "date", offset: 0, limit: 50, languageIds: null },
        { ...STORE, feedStatementUs },
      ).map((p) => p.postId);
      return { rows, perFeed: [...recorded.seen].some((sql) => sql.includes(`FROM ${FEED_FTS} WHERE`)) };
    };
    // Within the statements' budget on one segment, past it with each further segment's lookup:
    // posts_fts's plan; on one segment the per-feed plan, forced (its cost against posts_fts's is
    // perFeedCosts', tested below).
    const feeds = NAMED.tech!.length;
    const statementUs = FEED_STATEMENTS_BUDGET_US / feeds - (segments - 1) * FEED_SEGMENT_SEEK_COST_US * 0.5;
    assert.ok(statementUs > 0 && feeds * statementUs <= FEED_STATEMENTS_BUDGET_US);
    const spread = page(statementUs);
    assert.equal(spread.perFeed, false);
    db.exec(`INSERT INTO ${FEED_FTS} (${FEED_FTS}) VALUES ('optimize')`);
    assert.equal(segmentCount(stmts, FEED_FTS), 1);
    const merged = page(0);
    assert.equal(merged.perFeed, true);
    assert.deepEqual(merged.rows, spread.rows);
    assert.deepEqual(spread.rows, expected("rare feed:tech", "date", query).slice(0, 50));
    buildFeedIndex(db, () => {});
  });

  it("reads the feeds' lists without a prefix clause and checks each key read on posts_fts", async () => {
    const text = "comm* alpha feed:tech";
    const query = await resolveSearchFilters(store, parseSearchQuery(text));
    const recorded = new RecordingStatements(db);
    for (const sort of ["relevance", "date", "clicks"] as const) {
      recorded.seen.clear();
      const page = searchWithOperators(
        recorded,
        { query, sort, offset: 0, limit: 1000, languageIds: null },
        SMALL,
      );
      const read = [...recorded.seen];
      assert.ok(
        read.some((sql) => sql.includes(`SELECT rowid, 0 FROM ${FEED_FTS}`)),
        `${sort}: the feeds' lists read unscored`,
      );
      assert.ok(
        read.some(
          (sql) => sql.includes("FROM posts_fts") && sql.includes("rowid IN (SELECT value FROM json_each"),
        ),
        `${sort}: the keys checked`,
      );
      const ids = page.map((p) => p.postId);
      const all = expected(text, sort === "relevance" ? "date" : sort, query);
      if (sort === "relevance")
        assert.deepEqual([...ids].sort(), all.slice(0, SMALL.relevancePool).sort(), sort);
      else assert.deepEqual(ids, all.slice(0, 1000), sort);
      assert.ok(ids.length > 0, sort);
    }
  });

  it("weighs the per-feed plan's statements and rows against posts_fts's walk down to the page's hits", () => {
    const plan = { words: { clauses: [["word"]] } } as unknown as Plan;
    // 300 single feeds of 10 posts and 20 groups of 16 tiny feeds, 1M posts.
    const streams = [
      ...Array.from({ length: 300 }, () => ({
        match: "",
        feeds: 1,
        posts: 10,
        scoreSql: "",
        scoreArgs: [0, 0],
      })),
      ...Array.from({ length: 20 }, () => ({
        match: "",
        feeds: 16,
        posts: 32,
        scoreSql: "",
        scoreArgs: new Array(17).fill(0),
      })),
    ];
    // The feeds' hits among the sampled posts: by default their share of the word's (half of
    // 3,640 posts, about 1,820 hits, 60 of them among the sample).
    const at = (inSample: number, need: number, seekUs: number, inFeeds = (inSample * 3_640) / 1_000_000) =>
      perFeedCosts(plan, streams, {
        sampled: 32_768,
        counts: [inSample],
        rows: 1_000_000,
        theirs: 3_640,
        need,
        seekUs,
        inFeeds,
      });
    // A word in half the posts: about 1,820 of the feeds' hits, fewer than the pool, so the walk
    // reads the whole list while the per-feed plan reads only the hits.
    const rareInFeeds = at(16_384, 10_000, 15);
    assert.ok(rareInFeeds.perFeed < rareInFeeds.postsFts, JSON.stringify(rareInFeeds));
    // A page of 20 newest: the walk stops after a sliver of the list.
    const firstPage = at(16_384, 20, 15);
    assert.ok(firstPage.perFeed > firstPage.postsFts, JSON.stringify(firstPage));
    // The same word, but the feeds hold none of it among the sampled posts (another language, say):
    // the walk reads its whole list to find the page, the per-feed plan only seeks.
    const absent = at(16_384, 20, 15, 0);
    assert.ok(absent.perFeed < absent.postsFts, JSON.stringify(absent));
    // And all of the feeds' posts hold it: the walk stops after the page's share again.
    const everywhere = at(16_384, 20, 15, 3_640 * (32_768 / 1_000_000));
    assert.ok(everywhere.perFeed > everywhere.postsFts, JSON.stringify(everywhere));
    // Each statement's phrases are sought in every segment.
    const phrases = 300 + 20 * 16;
    assert.ok(Math.abs(at(16_384, 20, 15 * 15).perFeed - firstPage.perFeed - phrases * 15 * 14) < 1e-6);
  });

  /** Every row of an index as (row, column, offset, token), sorted. */
  const instances = (table: string) => {
    db.exec(
      `DROP TABLE IF EXISTS vocab; CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, ${table}, 'instance')`,
    );
    const rows = db.prepare("SELECT doc, col, offset, term FROM temp.vocab").raw().all() as Array<
      [number, string, number, string]
    >;
    db.exec("DROP TABLE temp.vocab");
    return rows.map((r) => r.join("|")).sort();
  };

  it("holds posts_fts's tokens under each post's feed after every kind of write, as a fresh build does", async () => {
    const tech = feedIds.get("Tech News Daily")!;
    const changed = written.find((p) => p.feed === "Tech News Daily")!;
    // A rename re-indexes the feed's posts; a refresh changes a post's text and date (a new key);
    // a feed's removal drops its posts.
    await store.applyFeedUpdate(tech, {
      fetchState: {},
      feed: { feedName: "Tech News Weekly" },
      posts: [
        {
          guid: `p${(changed.date - START) / HOUR}`,
          link: `https://posts.test/${(changed.date - START) / HOUR}`,
          title: "changed title alpha",
          excerpt: "",
          content: "",
          publishedAt: changed.date + 30 * 60_000,
          updatedAt: changed.date + 30 * 60_000,
          seenAt: START,
          languageId: 1,
        },
      ],
    });
    await store.applyFeedUpdate(feedIds.get("Daily Blog")!, {
      fetchState: {},
      posts: [
        {
          guid: "new-post",
          link: "https://posts.test/new",
          title: "common brand new",
          excerpt: "fresh words",
          content: "<p>more text</p>",
          publishedAt: START - HOUR,
          updatedAt: null,
          seenAt: START,
          languageId: 1,
        },
      ],
    });
    await store.removeFeed(feedIds.get("Misc")!);
    const kept = instances(FEED_FTS);
    const feedOf = new Map(
      db.prepare("SELECT date_key, feed_id FROM posts").raw().all() as Array<[number, number]>,
    );
    const stripped = kept.map((row) => {
      const [doc, col, offset, term] = row.split("|") as [string, string, string, string];
      const [feed, token] = term.split("\uE001") as [string, string];
      assert.equal(Number(feed), feedOf.get(Number(doc)), row);
      return [doc, col, offset, token].join("|");
    });
    // posts_fts's text columns: its title_words (schema 28) are the title's again, marked.
    const text = instances("posts_fts").filter((row) => row.split("|")[1] !== "title_words");
    assert.deepEqual(stripped.sort(), text);
    buildFeedIndex(db, () => {});
    assert.deepEqual(instances(FEED_FTS), kept);
    // The migration run again (a database put back a version) rebuilds it the same.
    db.prepare("DELETE FROM schema_migrations WHERE version >= 24").run();
    migrateSqlite(db);
    assert.deepEqual(instances(FEED_FTS), kept);
  });
});
