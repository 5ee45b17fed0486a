/**
 * Search with the filters of spec §4 on SQLite (`feed:`, `lang:`, `after:`, `before:`; prefixes
 * and `title:` are FTS5 syntax that the word plans take as is: fts5-term-operators.ts, and a
 * `lang:` clause alone joins the language list: foldLanguageClauses). The words become one FTS5
 * MATCH; the filters become SQL on the post's row (`feed_id`, `language_id`, `post_date`), beside
 * the MATCH. Two plans:
 * - few hits (at most FEW_HITS posts hold the words): the hits are read from the index and
 *   filtered, sorted and ranked whole;
 * - many hits (common words), or no words at all: the posts that pass the filters are walked in
 *   the page's order through the table's indexes (see batchSource), in growing batches whose hits
 *   one FTS5 pass over the batch's id range finds (or a seek per id when they are spread thin),
 *   until the page is full. Relevance then ranks the 10,000 newest matches, as spec §4
 *   allows.
 * A term inside an OR with a filter (`rust OR feed:blog`), and an excluded term beside no positive
 * one, are checked post by post (a rowid seek each).
 */
import {
  isFilter,
  type PostFilter,
  type SearchAtom,
  type SearchQuery,
  type SearchTerm,
} from "../../search/search-query.js";
import type { PostPage, PostRecord, SearchSort } from "../store.js";
import { toFts5Match } from "./fts5-match.js";
import type { StatementCache } from "./sqlite-connection.js";
import { postsInOrder } from "./sqlite-post-queries.js";
import { rankingStats, scoreSql } from "./sqlite-term-sample.js";

/** Up to this many hits, the hits are read whole; beyond, the filtered posts are walked. */
const FEW_HITS = 2_000;
/** Relevance ranks at most this many of the newest matches (spec §4). */
const RANKED_NEWEST = 10_000;

interface Where {
  sql: string;
  args: unknown[];
}

const seek = (negate: boolean) =>
  `${negate ? "NOT " : ""}EXISTS (SELECT 1 FROM posts_fts WHERE posts_fts MATCH ? AND rowid = p.id)`;

function ids(values: readonly number[] | undefined, what: string): string {
  if (values === undefined) throw new Error(`${what} filter reached the store unresolved`);
  return JSON.stringify(values);
}

function filterWhere(filter: PostFilter): Where {
  switch (filter.kind) {
    case "feed":
      return { sql: "p.feed_id IN (SELECT value FROM json_each(?))", args: [ids(filter.feedIds, "feed")] };
    case "lang":
      return {
        sql: "p.language_id IN (SELECT value FROM json_each(?))",
        args: [ids(filter.languageIds, "lang")],
      };
    case "date": {
      const parts: Where[] = [];
      if (filter.from !== null) parts.push({ sql: "p.post_date >= ?", args: [filter.from] });
      if (filter.until !== null) parts.push({ sql: "p.post_date < ?", args: [filter.until] });
      return and(parts);
    }
  }
}

function atomWhere(atom: SearchAtom): Where {
  if (isFilter(atom)) return filterWhere(atom);
  return { sql: seek(false), args: [toFts5Match({ clauses: [[atom]], excluded: [] })] };
}

function and(parts: Where[]): Where {
  if (parts.length === 0) return { sql: "1", args: [] };
  return { sql: parts.map((w) => `(${w.sql})`).join(" AND "), args: parts.flatMap((w) => w.args) };
}

function or(parts: Where[]): Where {
  return { sql: parts.map((w) => `(${w.sql})`).join(" OR "), args: parts.flatMap((w) => w.args) };
}

/** The query split into its words (one MATCH, or null) and the SQL of everything else. */
interface Plan {
  match: string | null;
  /** The words' query alone, for the term statistics of the score. */
  words: SearchQuery;
  filters: Where;
  /** The only feed the posts may come from, when a single `feed:` of one feed says so. */
  oneFeed: number | null;
}

function planOf(query: SearchQuery, languageIds: readonly number[] | null): Plan {
  const words: SearchQuery = { clauses: query.clauses, excluded: query.excluded };
  const match = toFts5Match(words);
  const parts: Where[] = [];
  if (match === null && query.excluded.length > 0) {
    // No positive words: the excluded ones are checked post by post.
    const anyExcluded: SearchQuery = { clauses: [query.excluded as SearchTerm[]], excluded: [] };
    parts.push({ sql: seek(true), args: [toFts5Match(anyExcluded)] });
  }
  let oneFeed: number | null = null;
  for (const clause of query.filterClauses ?? []) {
    parts.push(or(clause.map(atomWhere)));
    const only = clause.length === 1 ? clause[0]! : null;
    if (only !== null && isFilter(only) && only.kind === "feed" && only.feedIds?.length === 1) {
      oneFeed = only.feedIds[0]!;
    }
  }
  for (const filter of query.excludedFilters ?? []) {
    const w = filterWhere(filter);
    parts.push({ sql: `NOT (${w.sql})`, args: w.args });
  }
  if (languageIds !== null) {
    parts.push({
      sql: "p.language_id IN (SELECT value FROM json_each(?))",
      args: [JSON.stringify(languageIds)],
    });
  }
  return { match, words, filters: and(parts), oneFeed };
}

function hitCount(stmts: StatementCache, match: string, cap: number): number {
  return stmts
    .get("SELECT count(*) FROM (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? LIMIT ?)")
    .pluck()
    .get(match, cap + 1) as number;
}

const ORDER: Record<"date" | "clicks", string> = {
  date: "p.post_date DESC, p.id DESC",
  clicks: "p.clicks DESC, p.id DESC",
};

/** The first batch of filtered posts a walk reads, and the most it reads at once. */
const FIRST_BATCH = 256;
const MAX_BATCH = 16_384;

/**
 * Which of `ids` (a batch of the walk) hold the words: one FTS5 pass over the batch's id range,
 * or a seek per id when they are spread thin over it.
 */
function hitsAmong(stmts: StatementCache, match: string, ids: readonly number[]): Set<number> {
  let low = ids[0]!;
  let high = ids[0]!;
  for (const id of ids) {
    low = Math.min(low, id);
    high = Math.max(high, id);
  }
  if (high - low > SPREAD_PER_ID * ids.length) {
    // Ids spread over the index (one feed among many): a seek each reads less than the range.
    const one = stmts
      .get("SELECT 1 FROM posts_fts WHERE posts_fts MATCH ? AND rowid = CAST(? AS INTEGER)")
      .pluck();
    return new Set(ids.filter((id) => one.get(match, id) !== undefined));
  }
  const found = stmts
    .get(`SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?
      AND rowid BETWEEN CAST(? AS INTEGER) AND CAST(? AS INTEGER) AND +rowid IN (SELECT value FROM json_each(?))`)
    .pluck()
    .all(match, low, high, JSON.stringify(ids)) as number[];
  return new Set(found);
}

/** A batch whose ids lie further apart than this on average is checked id by id (as sqlite-search-queries.ts scores). */
const SPREAD_PER_ID = 64;

/**
 * The ids of the posts that pass `plan`, in `order`, from `offset`, at most `limit`: the hits
 * filtered when they are few; else the filtered posts walked in order, in growing batches, each
 * batch's hits found together (hitsAmong).
 */
function orderedIds(
  stmts: StatementCache,
  plan: Plan,
  order: "date" | "clicks",
  offset: number,
  limit: number,
): number[] {
  const { match, filters } = plan;
  if (match !== null && hitCount(stmts, match, FEW_HITS) <= FEW_HITS) {
    return stmts
      .get(`SELECT p.id FROM posts_fts t CROSS JOIN posts p ON p.id = t.rowid
        WHERE posts_fts MATCH ? AND ${filters.sql} ORDER BY ${ORDER[order]} LIMIT ? OFFSET ?`)
      .pluck()
      .all(match, ...filters.args, limit, offset) as number[];
  }
  const next = batchSource(stmts, plan, order);
  if (match === null) return next(offset + limit).slice(offset);
  const need = offset + limit;
  const found: number[] = [];
  let batch = Math.max(FIRST_BATCH, 2 * need);
  for (;;) {
    const ids = next(batch);
    if (ids.length === 0) break;
    const hits = hitsAmong(stmts, match, ids);
    for (const id of ids) if (hits.has(id)) found.push(id);
    if (found.length >= need || ids.length < batch) break;
    batch = Math.min(2 * batch, MAX_BATCH);
  }
  return found.slice(offset, need);
}

/**
 * The posts that pass the plan's filters in `order`, a batch at a time (`next(size)` gives the
 * next ids, fewer at the end), each batch resuming after the last (keyset paging):
 * - date: through posts_by_date, or posts_by_feed for one feed;
 * - clicks: the clicked posts through posts_clicked_by_id, then the others newest id first (the
 *   order's ties); one feed's through posts_by_feed_clicks (schema 17).
 */
function batchSource(
  stmts: StatementCache,
  plan: Plan,
  order: "date" | "clicks",
): (size: number) => number[] {
  const { filters } = plan;
  const feed =
    plan.oneFeed === null ? { where: "", args: [] } : { where: "p.feed_id = ? AND ", args: [plan.oneFeed] };
  type Phase = { from: string; where: string; key: string; by: string; cells: string };
  const phases: Phase[] =
    order === "date"
      ? [
          {
            from: plan.oneFeed === null ? "posts p" : "posts p INDEXED BY posts_by_feed",
            where: "1",
            key: "(p.post_date, p.id) < (?, ?)",
            by: "p.post_date DESC, p.id DESC",
            cells: "p.id, p.post_date",
          },
        ]
      : plan.oneFeed !== null
        ? [
            {
              from: "posts p INDEXED BY posts_by_feed_clicks",
              where: "1",
              key: "(p.clicks, p.id) < (?, ?)",
              by: "p.clicks DESC, p.id DESC",
              cells: "p.id, p.clicks",
            },
          ]
        : [
            {
              from: "posts p INDEXED BY posts_clicked_by_id",
              where: "p.clicks > 0",
              key: "(p.clicks, p.id) < (?, ?)",
              by: "p.clicks DESC, p.id DESC",
              cells: "p.id, p.clicks",
            },
            {
              from: "posts p",
              where: "p.clicks = 0",
              key: "(0, p.id) < (?, ?)",
              by: "p.id DESC",
              cells: "p.id, 0",
            },
          ];
  let phase = 0;
  let last: [number, number] | null = null;
  // The resume point's values as the phase's key reads them: (key, id), or the id alone.
  const keyArgs = (ph: Phase, at: [number, number] | null) =>
    at === null ? [] : ph.key.startsWith("(") ? [at[1], at[0]] : [at[0]];
  return (size) => {
    const ids: number[] = [];
    while (ids.length < size && phase < phases.length) {
      const ph = phases[phase]!;
      const rows = stmts
        .get(`SELECT ${ph.cells} FROM ${ph.from} WHERE ${feed.where}${ph.where} AND ${filters.sql}
          ${last === null ? "" : `AND ${ph.key}`} ORDER BY ${ph.by} LIMIT ?`)
        .raw()
        .all(...feed.args, ...filters.args, ...keyArgs(ph, last), size - ids.length) as Array<
        [number, number]
      >;
      for (const [id] of rows) ids.push(id);
      if (rows.length > 0) last = rows[rows.length - 1]!;
      if (ids.length < size) {
        phase++;
        last = null;
      }
    }
    return ids;
  };
}

/** The scores of some hits of `plan.match` (positive, higher better), by id. */
function scoresOf(stmts: StatementCache, plan: Plan, hits: readonly number[]): Map<number, number> {
  if (plan.match === null || hits.length === 0) return new Map(hits.map((id) => [id, 1]));
  const sample = rankingStats(stmts, plan.words);
  const low = Math.min(...hits);
  const high = Math.max(...hits);
  const rows = stmts
    .get(`SELECT rowid, ${scoreSql(sample.args.length - 1)} FROM posts_fts WHERE posts_fts MATCH ?
      AND rowid BETWEEN CAST(? AS INTEGER) AND CAST(? AS INTEGER) AND +rowid IN (SELECT value FROM json_each(?))`)
    .raw()
    .all(...sample.args, plan.match, low, high, JSON.stringify(hits)) as Array<[number, number]>;
  return new Map(rows);
}

/**
 * One page of a search that uses operators (`usesOperators(query)`), as `searchPosts` answers.
 * Relevance without words (`feed:name after:2026-01-01`) lists the posts newest first, each
 * scored 1.
 */
export function searchWithOperators(
  stmts: StatementCache,
  page: PostPage & { query: SearchQuery; sort: SearchSort },
): Array<PostRecord & { score: number }> {
  if (page.limit === 0 || page.languageIds?.length === 0) return [];
  const plan = planOf(page.query, page.languageIds);
  let ranked: Array<[number, number]>;
  if (page.sort !== "relevance" || plan.match === null) {
    const found = orderedIds(
      stmts,
      plan,
      page.sort === "clicks" ? "clicks" : "date",
      page.offset,
      page.limit,
    );
    const scores = scoresOf(stmts, plan, found);
    ranked = found.map((id) => [id, scores.get(id) ?? 1]);
  } else {
    if (page.offset >= RANKED_NEWEST) return [];
    const pool = orderedIds(stmts, plan, "date", 0, RANKED_NEWEST);
    const scores = scoresOf(stmts, plan, pool);
    ranked = pool
      .map((id): [number, number] => [id, scores.get(id) ?? 1])
      .sort((a, b) => b[1] - a[1] || b[0] - a[0])
      .slice(page.offset, Math.min(page.offset + page.limit, RANKED_NEWEST));
  }
  const scoreOf = new Map(ranked);
  return postsInOrder(
    stmts,
    ranked.map(([id]) => id),
  ).map((row) => ({ ...row, score: scoreOf.get(row.postId)! }));
}

/** How many posts a search with operators matches, up to `cap + 1` (see sqlite-search-count.ts). */
export function countWithOperators(
  stmts: StatementCache,
  args: { query: SearchQuery; languageIds: readonly number[] | null; cap: number },
): number {
  if (args.languageIds?.length === 0) return 0;
  const plan = planOf(args.query, args.languageIds);
  const { match, filters } = plan;
  // Common words: count by the walk (the filtered posts, batch by batch), not by every hit.
  if (match !== null && hitCount(stmts, match, FEW_HITS) > FEW_HITS) {
    return orderedIds(stmts, plan, "date", 0, args.cap + 1).length;
  }
  if (match !== null) {
    return stmts
      .get(`SELECT count(*) FROM (SELECT p.id FROM posts_fts t CROSS JOIN posts p ON p.id = t.rowid
        WHERE posts_fts MATCH ? AND ${filters.sql} LIMIT ?)`)
      .pluck()
      .get(match, ...filters.args, args.cap + 1) as number;
  }
  return stmts
    .get(`SELECT count(*) FROM (SELECT p.id FROM posts p WHERE ${filters.sql} LIMIT ?)`)
    .pluck()
    .get(...filters.args, args.cap + 1) as number;
}
