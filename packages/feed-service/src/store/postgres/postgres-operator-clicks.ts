/**
 * The clicks order (most clicked first, ties by id descending: spec §4) of a search with operators
 * on PostgreSQL, with a cost bounded by the page rather than by the posts in scope. No index of
 * `posts` holds clicks (a click stays a heap-only update, postgres-light-writes.ts), so the order
 * comes from `clicked_posts_by_clicks_then_id` (clicks, id), as the word plans' does
 * (postgres-search-queries.ts):
 * - when the posts with 8 or more clicks should hold the page, their own words' GIN index
 *   (postgres-clicked-words.ts) with the checks on the clicked_posts row (fromClickedWords);
 * - the clicked posts are walked in that order in stretches, each bounded by a key of the index
 *   (keyset: the stretch's last post, found by skipping along the index alone) and sized on the
 *   share of matches expected, then measured: each post of a stretch is read and checked (the
 *   filters and `title:` words on the row first, then the words on its vector), and the walk
 *   stops once the page is full: every post after it comes later in the order. Exact whatever
 *   the estimates;
 * - once every clicked post is read, the rest of the page are the posts without clicks, newest id
 *   first;
 * - when the matches are fewer than the posts the walk should read, or the walk reaches that
 *   many posts, all matches are read (through GIN with the scope's facets) and sorted.
 *
 * Within languages (`lang:`, a page's languages) or feeds (`feed:`), when they are few enough for
 * it (walkByLanguage, walkByFeed), the walk reads those languages' or feeds' clicked posts alone,
 * through `clicked_posts_by_language` or `clicked_posts_by_feed` (postgres-clicked-order.ts): a
 * page of a language or feed with a small share of the clicks no longer costs the page divided by
 * that share. Otherwise the feeds and languages are checked on the clicked_posts row, before any
 * probe of `posts`.
 */
import { type ClickedRange, clickedAfter, walkByFeed, walkByLanguage } from "./postgres-clicked-order.js";
import { CLICKED_WORDS_LEAST, clickedWordsHold } from "./postgres-clicked-words.js";
import { Where } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";
import { FEED_WORDS_EXPRESSION } from "./postgres-feed-words.js";
import { addMatching, type Expected, FEED_QUERIES, type Part, type Plan } from "./postgres-operator-plan.js";
import { windowOf } from "./postgres-operator-scope.js";
import {
  CLICKED_LEXEME_HITS,
  CLICKED_ROW_COST,
  FEED_WORD_SCAN_POSTS,
  MIN_WALK_STRETCH,
  PROBE_FEED_WORD_POSTS,
  TIER_MARGIN,
  TIER_POST_COST,
  WALK_PROBE_COST,
} from "./postgres-plan-costs.js";

type DayBounds = { newest: number; oldest: number; narrow: boolean };
/** A key of clicked_posts_by_clicks_then_id. */
type Key = { clicks: number; id: number };
/** Before every key: clicks are an int. */
const FIRST_KEY: Key = { clicks: 2 ** 31 - 1, id: 0 };

/** The page of all matches (or of those without clicks) in clicks order. */
async function allMatches(
  sql: Sql,
  plan: Plan,
  days: DayBounds,
  page: { offset: number; limit: number; unclicked?: boolean },
): Promise<number[]> {
  const where = addMatching(new Where(), plan, windowOf(plan.scope), days);
  if (page.unclicked === true) where.add("p.clicks = 0");
  // Words: MATERIALIZED keeps the GIN lookup a plan of its own (told of the LIMIT, the planner
  // could walk an index in order instead and test every post). Without words the planner picks
  // the scope's index (or the primary key, newest id first, for the posts without clicks).
  const found = await rows<{ id: number }>(
    sql,
    plan.index !== null
      ? `WITH m AS MATERIALIZED (SELECT p.id, p.clicks FROM posts p ${where.sql})
          SELECT id FROM m ORDER BY clicks DESC, id DESC LIMIT ${where.next(page.limit)} OFFSET ${where.next(page.offset)}`
      : `SELECT p.id FROM posts p ${where.sql} ORDER BY p.clicks DESC, p.id DESC
          LIMIT ${where.next(page.limit)} OFFSET ${where.next(page.offset)}`,
    where.params,
  );
  return found.map((r) => r.id);
}

/** The languages or feeds whose own clicked posts a walk reads (null: every clicked post). */
type Within = { column: ClickedRange["column"]; ids: readonly number[] } | null;

/**
 * The key `posts` clicked posts (of `within`, or of every language and feed when null) after
 * `after` (null: from the most clicked), or null when fewer remain.
 */
async function keyAfter(sql: Sql, within: Within, after: Key | null, posts: number): Promise<Key | null> {
  const from = after ?? FIRST_KEY;
  const range = within === null ? null : { column: within.column, ids: "$4" };
  const [key] = await rows<Key>(
    sql,
    `SELECT clicks, id FROM (${clickedAfter({ clicks: "$2", id: "$3" }, "$1", range)}) k
      ORDER BY clicks DESC, id DESC OFFSET $1 - 1 LIMIT 1`,
    [posts, from.clicks, from.id, ...(within === null ? [] : [within.ids])],
  );
  return key ?? null;
}

/**
 * The matches among the clicked posts after `after` down to `last` (null: to the end), in order.
 * Each post is read by its own probe of the primary key (a LATERAL subquery that the planner
 * cannot turn into a scan of every post), its filters and `title:` words checked before its words
 * (`search_vector`, out of TOAST): CASE keeps that order. Words that are all `title:` are settled
 * by that check alone (Plan.settled), and the vector is not read; when besides those the check
 * reads only columns that clicked_posts carries (languages, dates: see onClickedRow), it is made
 * on the clicked_posts row and `posts` is not read at all.
 */
async function stretch(
  sql: Sql,
  plan: Plan,
  after: Key | null,
  last: Key | null,
  feeds: FeedChecks | null,
): Promise<number[]> {
  const where = new Where();
  if (after !== null) where.add("(k.clicks, k.id) < (?, ?)", after.clicks, after.id);
  if (last !== null) where.add("(k.clicks, k.id) >= (?, ?)", last.clicks, last.id);
  // The scope's languages and feeds: their clicked posts alone, read through their own index
  // (walked by it) or checked on the clicked_posts row before `posts` is probed.
  if (plan.scope.languageIds !== null) where.add("k.language_id = ANY(?::int[])", plan.scope.languageIds);
  if (plan.scope.feedIds !== null) where.add("k.feed_id = ANY(?::int[])", plan.scope.feedIds);
  // The filters and `title:` words that read only what clicked_posts carries are checked on its
  // row too, before `posts` is probed: a probe (the primary key, the row, the vector out of TOAST)
  // costs ten or more clicked_posts rows (CLICKED_ROW_COST). The probe checks them again, on `posts`.
  const onRow = onClickedRow(plan);
  for (const part of onRow ? [] : [plan.filters, plan.verify]) {
    if (part.sql !== "TRUE" && carried(part)) where.add(part.sql.replace(/\bp\./g, "k."), ...part.args);
  }
  const check = new Where().add(
    `CASE WHEN (${plan.filters.sql}) AND (${plan.verify.sql}) THEN ${plan.words === null || plan.settled ? "TRUE" : "p.search_vector @@ ?::tsquery"} ELSE false END`,
    ...plan.filters.args,
    ...plan.verify.args,
    ...(plan.words === null || plan.settled ? [] : [plan.words]),
  );
  if (
    feeds !== null &&
    !onRow &&
    plan.words !== null &&
    !plan.settled &&
    plan.feedWords !== null &&
    !plan.feedTitles
  ) {
    return checkedByFeed(
      sql,
      plan as Plan & { words: string; feedWords: readonly string[] },
      where,
      check,
      feeds,
    );
  }
  // The check's parameters come after the stretch's bounds.
  const offset = where.params.length;
  const checked = check.parts[0]!.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  const found = await rows<{ id: number }>(
    sql,
    onRow
      ? `SELECT k.id FROM clicked_posts k WHERE ${[...where.parts, checked.replace(/\bp\./g, "k.")].join(" AND ")}
          ORDER BY k.clicks DESC, k.id DESC`
      : titleFirst(plan)
        ? // The words on the clicked_posts row's title vector first: a post whose title and feed
          // name words match needs no probe (OR keeps its arms' order; the EXISTS is a subplan run
          // for the other rows only).
          `SELECT k.id FROM clicked_posts k WHERE ${[
            ...where.parts,
            `(k.rank_vector @@ $${where.params.length + check.params.length + 1}::tsquery OR EXISTS (
              SELECT 1 FROM posts p WHERE p.id = k.id AND ${checked}))`,
          ].join(" AND ")} ORDER BY k.clicks DESC, k.id DESC`
        : `SELECT m.id FROM clicked_posts k CROSS JOIN LATERAL (
          SELECT p.id FROM posts p WHERE p.id = k.id AND ${checked} OFFSET 0) m
        ${where.sql} ORDER BY k.clicks DESC, k.id DESC`,
    [...where.params, ...check.params, ...(titleFirst(plan) && !onRow ? [plan.words] : [])],
  );
  return found.map((r) => r.id);
}

/**
 * What checking a walk's posts through the index of posts by feed and word needs: the share of
 * matches among the feeds' posts, and each feed's posts (feeds.post_count), read once a search.
 */
interface FeedChecks {
  share: number;
  posts: () => Promise<Map<number, number>>;
}

/**
 * The matches of a stretch (`where`: its clicked posts, in order) when the feeds' words drive
 * (Plan.feedWords): the clicked_posts rows first, those whose title vector settles the words kept
 * (titleFirst), and the others checked together per feed, by the cheaper way for that feed: its
 * keys in the index of posts by feed and word, once for all its walked posts (one scan, and the
 * feed's matches of every day: its posts times the share), ANDed with their ids; or each post's
 * own probe (`check`: the row and its vector out of TOAST). The feeds' keys are what the search
 * asks of every feed elsewhere (addMatching), checked the same way on the row: exact as that is.
 * Which way is cheaper follows from the feed's post count (PROBE_FEED_WORD_POSTS in
 * postgres-plan-costs.ts); the measurements are in bench/NOTES.md ("PostgreSQL `feed:` of many feeds").
 */
async function checkedByFeed(
  sql: Sql,
  plan: Plan & { words: string; feedWords: readonly string[] },
  where: Where,
  check: Where,
  feeds: FeedChecks,
): Promise<number[]> {
  const titled = titleFirst(plan);
  const walked = await rows<{ id: number; feed: number; titled: boolean }>(
    sql,
    `SELECT k.id, k.feed_id AS feed, ${titled ? `k.rank_vector @@ ${where.next(plan.words)}::tsquery` : "false"} AS titled
      FROM clicked_posts k WHERE ${where.parts.join(" AND ")} ORDER BY k.clicks DESC, k.id DESC`,
    where.params,
  );
  const open = new Map<number, number[]>();
  for (const w of walked) {
    if (!w.titled) open.set(w.feed, [...(open.get(w.feed) ?? []), w.id]);
  }
  const matched = new Set<number>();
  if (open.size > 0) {
    const posts = await feeds.posts();
    const queries = new Map(plan.scope.feedIds!.map((id, i) => [id, plan.feedWords[i]!]));
    const byKeys: { ids: number[]; queries: string[] } = { ids: [], queries: [] };
    const probed: number[] = [];
    for (const [feed, ids] of open) {
      const query = queries.get(feed);
      const keys = FEED_WORD_SCAN_POSTS + (posts.get(feed) ?? 0) * feeds.share;
      if (query !== undefined && keys < ids.length * PROBE_FEED_WORD_POSTS) {
        byKeys.ids.push(...ids);
        byKeys.queries.push(query);
      } else probed.push(...ids);
    }
    if (byKeys.ids.length > 0) {
      const keyed = new Where()
        .add("p.id = ANY(?::int[])", byKeys.ids)
        .add(`${FEED_WORDS_EXPRESSION} @@ ${FEED_QUERIES}`, byKeys.queries)
        .add(plan.recheck.sql, ...plan.recheck.args)
        .add(plan.verify.sql, ...plan.verify.args)
        .add(plan.filters.sql, ...plan.filters.args);
      for (const r of await rows<{ id: number }>(
        sql,
        `SELECT p.id FROM posts p ${keyed.sql}`,
        keyed.params,
      )) {
        matched.add(r.id);
      }
    }
    if (probed.length > 0) {
      // `check` is numbered from $1: after the ids here.
      const probe = check.parts[0]!.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + 1}`);
      const one = { sql: `WHERE p.id = ANY($1::int[]) AND ${probe}`, params: [probed, ...check.params] };
      for (const r of await rows<{ id: number }>(sql, `SELECT p.id FROM posts p ${one.sql}`, one.params)) {
        matched.add(r.id);
      }
    }
  }
  return walked.filter((w) => w.titled || matched.has(w.id)).map((w) => w.id);
}

/**
 * Whether a walked post whose title vector (`rank_vector`, the weight A and B lexemes of
 * `search_vector` with their positions) matches the words matches the query: the words exclude
 * nothing (a query without `!` only asks for lexemes and positions to be present:
 * https://www.postgresql.org/docs/current/textsearch-controls.html), and every other check is
 * made on the clicked_posts row (carried), so no probe of `posts` is left to make.
 */
function titleFirst(plan: Plan): boolean {
  return (
    plan.words !== null &&
    !plan.settled &&
    !excludes(plan.words) &&
    carried(plan.filters) &&
    carried(plan.verify)
  );
}

/** The columns of `posts` that clicked_posts carries too (migrations 33 and 34, postgres-clicked-languages.ts, postgres-clicked-feeds.ts). */
const CARRIED = new Set([
  "id",
  "clicks",
  "post_date",
  "category_id",
  "language_id",
  "rank_vector",
  "feed_id",
]);

/**
 * Whether a walked post's check reads only columns clicked_posts carries: no words to read on
 * `search_vector` (none, or all `title:`, on `rank_vector`), and filters of languages, feeds and dates.
 */
function onClickedRow(plan: Plan): boolean {
  if (plan.words !== null && !plan.settled) return false;
  return carried(plan.filters) && carried(plan.verify);
}

/** Whether a check reads only columns of `posts` that clicked_posts carries. */
function carried(part: Part): boolean {
  return [...part.sql.matchAll(/\bp\.(\w+)/g)].every((column) => CARRIED.has(column[1]!));
}

/**
 * The first `need` matches in clicks order from the most clicked posts' own words (migration 42,
 * postgres-clicked-words.ts), or null when they hold fewer: exact when it answers, as every post
 * outside the set has fewer clicks. For words that exclude nothing (GIN's `!word` is not exact
 * while the set index's pending list moves: postgres-excluded-words.ts) and checks that read only
 * what clicked_posts carries (filters, `title:` words on `rank_vector`), made on its row: no post
 * is probed. GIN is asked the words without their weights (a weight makes it recheck every
 * candidate's vector, out of TOAST): `verify` checks the `title:` clauses on the row's title vector,
 * which holds the title words with their weights, so the two together are the words.
 */
async function fromClickedWords(sql: Sql, plan: Plan, need: number): Promise<number[] | null> {
  if (plan.words === null || excludes(plan.words) || !carried(plan.filters) || !carried(plan.verify)) {
    return null;
  }
  const where = new Where().add("k.clicks >= ?", CLICKED_WORDS_LEAST);
  if (plan.scope.languageIds !== null) where.add("k.language_id = ANY(?::int[])", plan.scope.languageIds);
  if (plan.scope.feedIds !== null) where.add("k.feed_id = ANY(?::int[])", plan.scope.feedIds);
  for (const part of [plan.filters, plan.verify]) {
    if (part.sql !== "TRUE") where.add(part.sql.replace(/\bp\./g, "k."), ...part.args);
  }
  const words = where.next(plan.verify.sql === "TRUE" ? plan.words : withoutWeights(plan.words));
  const found = await rows<{ id: number }>(
    sql,
    `WITH hits AS MATERIALIZED (SELECT w.id FROM clicked_words w WHERE w.words @@ ${words}::tsquery)
      SELECT k.id FROM hits JOIN clicked_posts k ON k.id = hits.id ${where.sql}
      ORDER BY k.clicks DESC, k.id DESC LIMIT ${where.next(need)}`,
    where.params,
  );
  return found.length === need ? found.map((r) => r.id) : null;
}

/** A tsquery's text without its lexemes' weights (`'new':A` -> `'new'`, `'pro':*A` -> `'pro':*`). */
function withoutWeights(words: string): string {
  return words.replace(/('(?:[^']|'')*')(?::(\*?)[A-D]*)?/g, (_, lexeme: string, prefix?: string) =>
    prefix ? `${lexeme}:*` : lexeme,
  );
}

/** Whether a tsquery excludes a word (a `!` outside its quoted lexemes). */
function excludes(words: string): boolean {
  return words.replace(/'(?:[^']|'')*'/g, "").includes("!");
}

/**
 * The first `need` matches in clicks order among the clicked posts, from every clicked post's
 * lexemes (migration 67, postgres-clicked-lexemes.ts): all of them when fewer match. Null when
 * the lexemes do not settle the words (Plan.clicked) or a check reads more than clicked_posts
 * carries. The set's GIN gives every clicked match of the words (less those holding an excluded
 * word, found positively and left out by id), and clicked_posts' row their clicks and the checks
 * (filters, `title:` words on `rank_vector`): no post is probed. Exact: the set is every clicked
 * post (its rows move with clicked_posts' in the same transaction), read in one snapshot with
 * clicked_posts, and a post outside it has no click, so it comes after every clicked match.
 */
async function fromClickedLexemes(sql: Sql, plan: Plan, need: number): Promise<number[] | null> {
  const clicked = plan.clicked;
  if (!clicked || plan.words === null) return null;
  if (!carried(plan.filters) || !carried(plan.verify) || !carried(clicked.recheck)) return null;
  const where = new Where();
  const index = where.next(clicked.index);
  // EXCEPT: the matches holding an excluded word, through the same index positively.
  const excluded =
    clicked.excluded === null
      ? ""
      : `EXCEPT SELECT w.id FROM clicked_lexemes w WHERE w.lexemes @@ (${index}::tsquery && ${where.next(clicked.excluded)}::tsquery)`;
  for (const part of [plan.filters, plan.verify, clicked.recheck]) {
    if (part.sql !== "TRUE") where.add(part.sql.replace(/\bp\./g, "k."), ...part.args);
  }
  // MATERIALIZED keeps the GIN lookup a plan of its own (told of the LIMIT, the planner could walk
  // the clicks index and probe the set for every clicked post). `IS TRUE` keeps the IN a hashed
  // subplan rather than a join: the clicks index is then walked in order, each key tested in the
  // hash, up to the page (about need / share keys), where a join sorted every match (44.8 against
  // 22.7 ms for `pro*` at 5,000 on the 200k long-tail: bench/NOTES.md, pgpfx).
  where.add("(k.id IN (SELECT hits.id FROM hits)) IS TRUE");
  const found = await rows<{ id: number }>(
    sql,
    `WITH hits AS MATERIALIZED (SELECT w.id FROM clicked_lexemes w WHERE w.lexemes @@ ${index}::tsquery ${excluded})
      SELECT k.id FROM clicked_posts k ${where.sql}
      ORDER BY k.clicks DESC, k.id DESC LIMIT ${where.next(need)}`,
    where.params,
  );
  return found.map((r) => r.id);
}

/** The clicked posts as the statistics last counted them (null: not counted yet, or no set). */
async function clickedPostsCounted(sql: Sql): Promise<number | null> {
  const [row] = await rows<{ n: number }>(
    sql,
    "SELECT c.reltuples::float8 AS n FROM pg_class c WHERE c.oid = to_regclass('clicked_lexemes')",
  );
  return row === undefined || row.n < 0 ? null : row.n;
}

/**
 * The ids of one clicks-ordered page (exact), `expected` the statistics' guess of the plan and
 * `days` the newest and oldest days with posts.
 */
export async function mostClickedIds(
  sql: Sql,
  plan: Plan,
  expected: Expected,
  days: DayBounds,
  page: { offset: number; limit: number },
): Promise<number[]> {
  const need = page.offset + page.limit;
  const matches = expected.inBase * expected.base * expected.posts;
  // The most clicked posts' own words first when they should hold the page: the share of matches
  // among them taken as among all posts.
  if (await clickedWordsHold(sql, (need * TIER_MARGIN) / (expected.inBase * expected.base))) {
    const fromSet = await fromClickedWords(sql, plan, need);
    if (fromSet) return fromSet.slice(page.offset);
  }
  // Within few enough languages or feeds the walk reads their clicked posts alone
  // (postgres-clicked-order.ts), the narrower of the two when both qualify. Among a language's the
  // share is the words' within the scope's days (languages and days taken as independent, as
  // `expected` does, so the languages' share is base / days); among a feed's, the words' within
  // the scope's languages and days (inBase counts the feeds' share in: feeds and words independent).
  const { languageIds: languages, feedIds: feeds } = plan.scope;
  const languagesShare = expected.base / Math.max(expected.days, 1e-9);
  const byLanguage = languages !== null && walkByLanguage(languages, languagesShare);
  const byFeed =
    feeds !== null && walkByFeed(feeds, expected.feeds) && (!byLanguage || expected.feeds <= languagesShare);
  const within: Within = byFeed
    ? { column: "feed_id", ids: feeds }
    : byLanguage
      ? { column: "language_id", ids: languages }
      : null;
  let share = byFeed
    ? (expected.inBase / Math.max(expected.feeds, 1e-9)) * expected.base
    : byLanguage
      ? expected.inBase * expected.days
      : expected.inBase * expected.base;
  // A walked post is read and checked against the words (out of TOAST): TIER_POST_COST heap rows
  // of matches handed over by GIN; without words, a probe against a row read in the table's order
  // (WALK_PROBE_COST). Past that many posts, reading every match costs less.
  // Only the walked posts in the scope's feeds and languages are checked further: the others are
  // dropped on their clicked_posts row, at CLICKED_ROW_COST (scopes walked by their own index
  // hold none of those).
  // So are those whose title lacks a `title:` word, checked on that row (stretch): the rarest
  // title clause's share, at most. Not the days': clicks go to the newest posts far more than
  // their share of the days, so the date filters (checked there too) drop fewer than the days' share.
  const checked =
    (within?.column === "feed_id" ? 1 : expected.feeds) *
    (within?.column === "language_id" ? 1 : Math.min(1, languagesShare)) *
    (carried(plan.verify) ? expected.titles : 1);
  const perPost = checked + (1 - checked) * CLICKED_ROW_COST;
  const budget = matches / (plan.words === null ? WALK_PROBE_COST : TIER_POST_COST) / perPost;
  const walked = (need * TIER_MARGIN) / Math.max(share, 1e-9);
  // Every clicked match from the clicked posts' lexemes when the walk would probe more clicked
  // posts than their GIN hands over matches, weighed by CLICKED_LEXEME_HITS (the words' share
  // among all posts taken as among the clicked ones: the set's GIN reads the words' clicked
  // matches in every language and feed); or when the walk does not pay and the clicked matches
  // of the scope should fill the page (else reading every match at once costs less). Not in place
  // of a walk that probes no post: words settled on clicked_posts' row, or the feeds' words.
  const lexemes = plan.clicked && plan.words !== null ? await clickedPostsCounted(sql) : null;
  const probes = !plan.settled && plan.feedWords === null;
  if (
    lexemes !== null &&
    (walked <= budget
      ? probes && walked * perPost * CLICKED_LEXEME_HITS > expected.words * lexemes
      : (matches / expected.posts) * lexemes >= need * TIER_MARGIN)
  ) {
    const clicked = await fromClickedLexemes(sql, plan, need);
    if (clicked !== null) {
      if (clicked.length >= need) return clicked.slice(page.offset);
      // Every clicked match is read: the rest of the page holds posts without clicks.
      const rest = await allMatches(sql, plan, days, {
        unclicked: true,
        offset: Math.max(0, page.offset - clicked.length),
        limit: need - Math.max(clicked.length, page.offset),
      });
      return [...clicked.slice(page.offset), ...rest];
    }
  }
  if (walked <= budget) {
    const feedChecks = feedChecksOf(sql, plan, expected);
    const found: number[] = [];
    let read = 0;
    let after: Key | null = null;
    while (read < budget) {
      const wanted = Math.ceil(((need - found.length) * TIER_MARGIN) / Math.max(share, 1e-9));
      const posts = Math.min(Math.max(MIN_WALK_STRETCH, wanted), Math.ceil(budget - read));
      const last = await keyAfter(sql, within, after, posts);
      found.push(...(await stretch(sql, plan, after, last, feedChecks)));
      // The walked posts come first in the order: a full page answers exactly.
      if (found.length >= need) return found.slice(page.offset, need);
      if (last === null) {
        // Every clicked post is read: the rest of the page holds posts without clicks.
        const rest = await allMatches(sql, plan, days, {
          unclicked: true,
          offset: Math.max(0, page.offset - found.length),
          limit: need - Math.max(found.length, page.offset),
        });
        return [...found.slice(page.offset), ...rest];
      }
      read += posts;
      // The share measured so far steers the next stretch (a small one when none matched yet).
      share = Math.max(found.length, 1) / read;
      after = last;
    }
  }
  return allMatches(sql, plan, days, page);
}

/** What checkedByFeed needs of a walk's search, its feeds' posts read on first use; null without the feeds' words. */
function feedChecksOf(sql: Sql, plan: Plan, expected: Expected): FeedChecks | null {
  const feedIds = plan.scope.feedIds;
  if (plan.feedWords === null || feedIds === null) return null;
  let read: Promise<Map<number, number>> | null = null;
  return {
    // The words' share among the feeds' posts (inBase counts the feeds' share in).
    share: Math.min(1, expected.inBase / Math.max(expected.feeds, 1e-9)),
    posts: () => {
      read ??= rows<{ id: number; posts: number }>(
        sql,
        "SELECT id, post_count AS posts FROM feeds WHERE id = ANY($1::int[])",
        [feedIds],
      ).then((r) => new Map(r.map((f) => [f.id, f.posts])));
      return read;
    },
  };
}
