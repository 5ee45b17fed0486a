/**
 * What the counted words' PostgreSQL tests (store/postgres/postgres-counted-*.test.ts) share: a
 * database with three languages, corpora drawn from a seed or written by one INSERT, clicks, the
 * brute-force reads that hold the counts and pages to every post's own lexemes (never the search
 * index), and the writes that take the click triggers down their rarer paths. Each test file keeps
 * its own seed, corpus shape and checks.
 */
import assert from "node:assert/strict";
import type pg from "pg";
import { resolveSearchFilters } from "../operations/search-filters.js";
import { parseSearchQuery } from "../search/parse-search-query.js";
import { foldLanguageClauses, type SearchQuery } from "../search/search-query.js";
import { inTransaction } from "../store/postgres/postgres-connection.js";
import { syncCountedWords } from "../store/postgres/postgres-counted-words.js";
import { postgresMigrations } from "../store/postgres/postgres-migrations.js";
import { COUNTED_BLOCK_IDS } from "../store/postgres/postgres-plan-costs.js";
import type { PostgresStore } from "../store/postgres/postgres-store.js";
import type { IncomingPost } from "../store/store.js";
import { mulberry32Draws } from "./seeded-draws.js";
import { openTestPostgresStore, type TestPostgresStore } from "./test-postgres-server.js";

export const DAY = 86_400_000;
export const HOUR = 3_600_000;

/** The words counted at a test's scale of COUNTED_WORD_MATCHES: over 150 matches, two at most. */
export const COUNTED_CHOICE = { matches: 150, most: 2 };

export interface CountedStore {
  readonly db: TestPostgresStore;
  readonly store: PostgresStore;
  readonly pool: pg.Pool;
  /** English (1), German, Japanese. */
  readonly languages: number[];
}

/** Database `name` with English, German and Japanese (the counts are kept per language). */
export async function openCountedStore(name: string): Promise<CountedStore> {
  const db = await openTestPostgresStore(name);
  const added = await Promise.all(["de", "ja"].map((c) => db.store.ensureLanguage(c)));
  return { db, store: db.store, pool: db.pool, languages: [1, ...added.map((l) => l.languageId)] };
}

/** The languages a page is checked in: all, one, two. */
export function languageSets(languages: number[]): Array<number[] | null> {
  return [null, [languages[1]!], [languages[0]!, languages[2]!]];
}

/** A corpus drawn from a seed: the same posts on every run. */
export interface DrawnShape {
  seed: number;
  now: number;
  /** Each word and the share of the posts that hold it. */
  shares: Array<[string, number]>;
  /** Posts are dated up to this many days before `now`. */
  days: number;
  /** A post's age from the drawn one, by its index (some at a day's or an hour's start: ties). */
  age?: (i: number, drawn: number) => number;
}

/** The click counts' corpus (DrawnCorpus.addClickedFeeds): `amber` and `birch` counted, `dune` rare. */
export function clickedShape(seed: number, now: number, days: number): DrawnShape {
  return {
    seed,
    now,
    shares: [
      ["amber", 0.85],
      ["birch", 0.5],
      ["dune", 0.02],
    ],
    days,
  };
}

export class DrawnCorpus implements CountedStore {
  readonly db: TestPostgresStore;
  readonly store: PostgresStore;
  readonly pool: pg.Pool;
  readonly languages: number[];
  /** The file's own draws, in the order its set-up and tests make them. */
  readonly next: () => number;

  private constructor(
    base: CountedStore,
    readonly shape: DrawnShape,
  ) {
    ({ db: this.db, store: this.store, pool: this.pool, languages: this.languages } = base);
    this.next = mulberry32Draws(shape.seed);
  }

  static async open(name: string, shape: DrawnShape): Promise<DrawnCorpus> {
    return new DrawnCorpus(await openCountedStore(name), shape);
  }

  /** A feed's posts: each holds each word with its share; titled `title` (or `title` of its words) when given. */
  posts(
    prefix: string,
    size: number,
    languageId: number,
    title?: string | ((words: string) => string),
  ): IncomingPost[] {
    const { shares, now, days, age } = this.shape;
    return Array.from({ length: size }, (_, i) => {
      const words = shares
        .filter(([, share]) => this.next() < share)
        .map(([w]) => w)
        .join(" ");
      const drawn = Math.floor(this.next() * days * DAY);
      return {
        guid: `${prefix}${i}`,
        link: `https://example.test/${prefix}/${i}`,
        title: typeof title === "function" ? title(words) : (title ?? words),
        // Words of their own: only the shares' words are common.
        excerpt: `n${prefix}${i}`,
        content: "",
        publishedAt: now - (age ? age(i, drawn) : drawn),
        updatedAt: null,
        seenAt: now,
        languageId,
      };
    });
  }

  /** `count` feeds named by `letter`, feed f in language f % 3, each given `size(f)` posts; their ids. */
  async addFeeds(letter: string, count: number, size: (f: number) => number): Promise<number[]> {
    const feeds: number[] = [];
    for (let f = 0; f < count; f++) {
      const languageId = this.languages[f % 3]!;
      const feed = await this.store.addFeed({
        feedUrl: `https://${letter}${f}.test/feed`,
        feedName: `${letter.toUpperCase()}${f}`,
        languageId,
      });
      feeds.push(feed.feedId);
      await this.store.applyFeedUpdate(feed.feedId, {
        fetchState: {},
        posts: this.posts(`a${f}-`, size(f), languageId),
      });
    }
    return feeds;
  }

  /** Clicks (`times` each, through the store) on `count` posts drawn from those with `clicks` in [min, max]. */
  async click(count: number, min: number, max: number, times = 1): Promise<void> {
    const { rows } = await this.pool.query<{ id: number }>(
      "SELECT id FROM posts WHERE clicks BETWEEN $1 AND $2 ORDER BY md5(id::text) LIMIT $3",
      [min, max, count],
    );
    for (const { id } of rows)
      for (let t = 0; t < times; t++)
        await this.store.insertClick(id, `c${id}-${min}-${t}-${this.next()}`, this.shape.now - DAY);
  }

  /**
   * The click counts' corpus: ids from just below a block's end on (posts past a few blocks),
   * 12 feeds of 180 posts, every 11th id deleted (a block may hold fewer posts than ids), clicks
   * with ties, and the words counted. The feeds' ids.
   */
  async addClickedFeeds(letter: string): Promise<number[]> {
    await this.pool.query(`SELECT setval(pg_get_serial_sequence('posts', 'id'), ${COUNTED_BLOCK_IDS - 300})`);
    const feeds = await this.addFeeds(letter, 12, () => 180);
    await this.pool.query("DELETE FROM posts WHERE id % 11 = 0");
    await this.click(500, 0, 0);
    await this.click(200, 1, 5, 2);
    await this.click(40, 2, 9, 5);
    await this.pool.query("ANALYZE posts");
    assert.equal(await syncCountedWords(this.pool, COUNTED_CHOICE), 2);
    return feeds;
  }

  /** After a truncation: 300 posts in each of `feeds`' first five (the fifth twice), clicks, the words counted again. */
  async refillClickedFeeds(feeds: number[]): Promise<void> {
    for (let f = 0; f < 6; f++) {
      await this.store.applyFeedUpdate(feeds[f === 5 ? 4 : f]!, {
        fetchState: {},
        posts: this.posts(`d${f}-`, 300, this.languages[f % 3]!),
      });
    }
    await this.click(400, 0, 0);
    await this.click(100, 1, 3, 3);
    await this.pool.query("ANALYZE posts");
    assert.equal(await syncCountedWords(this.pool, COUNTED_CHOICE), 2);
  }
}

export interface PostScope {
  languageIds?: number[] | null;
  /** post_date >= from */
  from?: number | null;
  /** post_date < until */
  until?: number | null;
}

/**
 * Every post whose own lexemes hold `lexeme`, within the scope, in spec §4's order by clicks or by
 * date (ties by id descending), and how many of them are clicked.
 */
export async function postsHolding(
  pool: pg.Pool,
  lexeme: string,
  sort: "clicks" | "date",
  scope: PostScope = {},
): Promise<{ ids: number[]; clicked: number }> {
  const order = sort === "clicks" ? "clicks DESC, id DESC" : "post_date DESC, id DESC";
  const { rows } = await pool.query<{ id: number; clicks: number }>(
    `SELECT id, clicks FROM posts WHERE $1 = ANY(tsvector_to_array(search_vector))
      AND ($2::int[] IS NULL OR language_id = ANY($2::int[]))
      AND ($3::bigint IS NULL OR post_date >= $3) AND ($4::bigint IS NULL OR post_date < $4)
      ORDER BY ${order}`,
    [lexeme, scope.languageIds ?? null, scope.from ?? null, scope.until ?? null],
  );
  return { ids: rows.map((r) => r.id), clicked: rows.filter((r) => r.clicks > 0).length };
}

/** `word` within a range, as the parser writes `after:`/`before:` (each its own clause). */
export function rangedQuery(word: string, from: number | null, until: number | null): SearchQuery {
  const words = parseSearchQuery(word);
  const filters = [
    ...(from === null ? [] : [[{ kind: "date" as const, from, until: null }]]),
    ...(until === null ? [] : [[{ kind: "date" as const, from: null, until }]]),
  ];
  return { ...words, filterClauses: filters };
}

/** A statement and its values. */
export type Statement = [text: string, values: unknown[]];

/** The rows a store keeps against the same rows recounted from every post: more than `more` of them, and equal. */
export async function assertAsRecounted(
  pool: pg.Pool,
  label: string,
  kept: Statement,
  recount: Statement,
  more = 0,
): Promise<void> {
  const { rows: held } = await pool.query(...kept);
  const { rows: all } = await pool.query(...recount);
  assert.ok(all.length > more, `${label} matches`);
  assert.deepEqual(held, all, label);
}

/** assertAsRecounted for each word, its lexeme the statements' only value. */
export async function assertEachAsRecounted(
  pool: pg.Pool,
  label: string,
  words: string[],
  kept: string,
  recount: string,
  more = 0,
): Promise<void> {
  for (const word of words)
    await assertAsRecounted(pool, `${label}: '${word}'`, [kept, [word]], [recount, [word]], more);
}

/**
 * The triggers on posts that keep clicked_posts and the counts of a post's clicked state, under
 * every name migrations 50-63 gave them, in firing order (AFTER triggers of one event fire in name
 * order).
 */
export async function clickedStateTriggers(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ tgname: string }>(
    `SELECT tgname FROM pg_trigger WHERE tgrelid = 'posts'::regclass AND tgname IN ('posts_track_clicked',
        'posts_track_clicked_blocks', 'posts_click_click_blocks', 'posts_track_clicked_periods',
        'posts_click_click_periods', 'posts_track_clicked_counts')
      ORDER BY tgname`,
  );
  return rows.map((t) => t.tgname);
}

/**
 * First clicks on `ids` with posts_track_clicked set aside (as a bulk load sets it: no clicked_posts
 * row to read), then their rows by a later click (posts_track_clicked's insert).
 */
export async function firstClicksWithoutRows(pool: pg.Pool, ids: number[]): Promise<void> {
  await pool.query("ALTER TABLE posts DISABLE TRIGGER posts_track_clicked");
  try {
    await pool.query("UPDATE posts SET clicks = 1 WHERE id = ANY($1::int[])", [ids]);
  } finally {
    await pool.query("ALTER TABLE posts ENABLE TRIGGER posts_track_clicked");
  }
  await pool.query("UPDATE posts SET clicks = 2 WHERE id = ANY($1::int[])", [ids]);
}

/**
 * Since migration 66 a block's counts are columns of its period row of the same key: in a
 * language's row of a word whose blocks and periods are counted, its unclicked posts are its
 * period entries summed; the all-languages rows (language 0) keep none (the blocks are summed from
 * the languages' rows).
 */
export async function assertBlocksBesidePeriods(pool: pg.Pool, label: string): Promise<void> {
  const { rows } = await pool.query(
    `SELECT b.search_id, b.language_id, b.block, b.block_unclicked, b.block_clicked,
        (SELECT coalesce(sum(x), 0) FROM unnest(b.unclicked) x)::int AS periods
      FROM counted_click_periods b
      WHERE b.search_id IN (SELECT search_id FROM counted_click_searches JOIN counted_period_searches USING (search_id))
        AND (b.language_id = 0 AND (b.block_unclicked <> 0 OR b.block_clicked <> 0)
          OR b.language_id <> 0 AND b.block_unclicked IS DISTINCT FROM (SELECT coalesce(sum(x), 0) FROM unnest(b.unclicked) x))
      LIMIT 3`,
  );
  assert.deepEqual(rows, [], `${label}: block counts beside the period entries`);
}

/**
 * The click blocks as a table of their own, as every migration before 66 kept them (its rows the
 * view's; the period rows without the block columns): a database to take migration 66 from.
 */
export async function blocksAsTableBefore66(pool: pg.Pool): Promise<void> {
  await pool.query(`CREATE TEMP TABLE kept_blocks AS SELECT * FROM counted_click_blocks;
    DROP VIEW counted_click_blocks;
    CREATE TABLE counted_click_blocks (
      search_id integer NOT NULL REFERENCES counted_searches (id) ON DELETE CASCADE,
      language_id integer NOT NULL,
      block integer NOT NULL,
      unclicked integer NOT NULL,
      clicked integer NOT NULL,
      PRIMARY KEY (search_id, language_id, block)
    );
    INSERT INTO counted_click_blocks SELECT * FROM kept_blocks;
    DROP TABLE kept_blocks;
    ALTER TABLE counted_click_periods DROP COLUMN block_unclicked, DROP COLUMN block_clicked;`);
}

/** Migrations `version` on taken again, in order, as an upgrade takes them. */
export async function takeMigrationsFrom(pool: pg.Pool, version: number): Promise<void> {
  for (const m of postgresMigrations.filter((m) => m.version >= version))
    await inTransaction(pool, (sql) => m.up(sql, () => {}));
}

/**
 * A first click, and clicks back to none, that re-word their post in the same statement: the one
 * trigger's path for any other change (migration 63).
 */
export async function rewordWithClickChanges(pool: pg.Pool): Promise<void> {
  const reworded = await pool.query(
    `UPDATE posts SET clicks = 1, search_vector = search_vector || to_tsvector('simple', 'birch')
      WHERE clicks = 0 AND NOT search_vector @@ 'birch'::tsquery AND id % 7 = 2`,
  );
  assert.ok(reworded.rowCount! > 0);
  await pool.query(
    `UPDATE posts SET clicks = 0, search_vector = search_vector || to_tsvector('simple', 'amber')
      WHERE clicks = 2 AND NOT search_vector @@ 'amber'::tsquery AND id % 3 = 1`,
  );
}

/** `feed:` names and the feeds they name (SQL LIKE): many, a few, two, one (addNamedFeeds). */
export const NAMED_FEEDS: Array<[string, string]> = [
  ["tagebuch", "Tagebuch %"],
  ["mid", "Mid %"],
  ["big", "Big %"],
  ["solo", "Big Solo"],
];

/**
 * Feeds 0-1 "Big 0" and "Big Solo", 2-9 "Mid n" (a `feed:` of a few: facets in the index), 10-57
 * "Tagebuch n" (of many: the feeds' words); their ids.
 */
export async function addNamedFeeds(store: PostgresStore): Promise<number[]> {
  const feeds: number[] = [];
  for (let i = 0; i < 58; i++) {
    const name = i === 0 ? "Big 0" : i === 1 ? "Big Solo" : i < 10 ? `Mid ${i}` : `Tagebuch ${i}`;
    feeds.push((await store.addFeed({ feedUrl: `https://c.test/${i}`, feedName: name })).feedId);
  }
  return feeds;
}

/** The series' newest day and how many days back its posts go. */
export const SERIES_T0 = Date.UTC(2026, 0, 10);
export const SERIES_DAYS = 700;

export interface SeriesOptions {
  /** Ids `n x idStep` (else the sequence's). */
  idStep?: number;
  /** Every 7th post in this language (else all in English). */
  german?: number;
  /** Posts at five times of their day (else at its start). */
  timesOfDay?: boolean;
}

/**
 * Posts `from`..`from + count - 1` of the series over `feeds` (addNamedFeeds): 40% in the two big
 * feeds, 20% in the mid ones, the rest skewed over the many; spread over SERIES_DAYS out of date
 * order; 85% holding `amber`, half `birch`, each one of 97 words of its own. Then every feed's
 * post_count.
 */
export async function insertSeries(
  pool: pg.Pool,
  feeds: number[],
  from: number,
  count: number,
  prefix: string,
  options: SeriesOptions = {},
): Promise<void> {
  const { idStep, german, timesOfDay } = options;
  await pool.query(
    `INSERT INTO posts (${idStep ? "id, " : ""}feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, clicks, search_vector)
      SELECT ${idStep ? `i * ${idStep}, ` : ""}($1::int[])[CASE WHEN i % 10 < 4 THEN (i / 10) % 2 + 1 WHEN i % 10 < 6 THEN i % 8 + 3
          ELSE 11 + floor(48 * power(((i * 7919) % 1000) / 1000.0, 2))::int END],
        $2 || i, 'https://c.test/' || $2 || i, 'Post ' || i, '', '', 0,
        $3::bigint - ((i * 7919) % ${SERIES_DAYS})::bigint * ${DAY}${timesOfDay ? " + (i % 5)::bigint * 1000000" : ""},
        ${german === undefined ? "1" : "CASE WHEN i % 7 = 0 THEN $6::int ELSE 1 END"}, 0,
        ((CASE WHEN i % 20 < 17 THEN 'amber:1 ' ELSE '' END)
          || (CASE WHEN i % 2 = 0 THEN 'birch:2 ' ELSE '' END)
          || 'w' || (i % 97) || ':4')::tsvector
      FROM generate_series($4::int, $5::int) i`,
    [feeds, prefix, SERIES_T0, from, from + count - 1, ...(german === undefined ? [] : [german])],
  );
  await recountFeedPosts(pool);
}

/** Every feed's post_count from its posts (written around the store). */
export async function recountFeedPosts(pool: pg.Pool): Promise<void> {
  await pool.query("UPDATE feeds f SET post_count = (SELECT count(*) FROM posts p WHERE p.feed_id = f.id)");
}

/**
 * Every post holding `lexeme` in the feeds named like `like` (and `language`), in spec §4's order
 * by clicks or by date (ties by id descending), and how many of them are clicked.
 */
export async function feedPostsHolding(
  pool: pg.Pool,
  lexeme: string,
  like: string,
  sort: "clicks" | "date",
  language: number | null = null,
): Promise<{ ids: number[]; clicked: number }> {
  const order = sort === "clicks" ? "p.clicks DESC, p.id DESC" : "p.post_date DESC, p.id DESC";
  const { rows } = await pool.query<{ id: number; clicks: number }>(
    `SELECT p.id, p.clicks FROM posts p JOIN feeds f ON f.id = p.feed_id
      WHERE $1 = ANY(tsvector_to_array(p.search_vector)) AND f.name LIKE $2
        AND ($3::int IS NULL OR p.language_id = $3) ORDER BY ${order}`,
    [lexeme, like, language],
  );
  return { ids: rows.map((r) => r.id), clicked: rows.filter((r) => r.clicks > 0).length };
}

/** `terms` parsed with its `feed:` and `lang:` resolved as a search request does. */
export async function resolvedQuery(store: PostgresStore, terms: string) {
  return foldLanguageClauses(await resolveSearchFilters(store, parseSearchQuery(terms)), null);
}
