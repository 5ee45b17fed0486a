/**
 * Full-text hits most clicked first (ties by id descending), exactly, at a cost that follows the
 * cheaper of two ways in:
 * - from the clicked posts: walk them in (clicks desc, id desc) order through `posts_clicked_by_key`
 *   and ask FTS5 which of each batch match (`rowid IN` their date keys). For a common word most of the most
 *   clicked posts match, so a page needs a few hundred tests whatever the hit count.
 * - from the hits: let SQLite gather every hit's id into a temporary index and walk the clicked
 *   posts against it: cheap a hit, so the way in for a word in few posts.
 * The hit count is estimated first (counted exactly when small, else from the hits among the
 * newest posts); the clicked walk gives up for the hit side once it has spent twice its estimate.
 * Posts with no click follow, highest id first (spec §4 ties). Every list here is of date keys,
 * the index's rowids (sqlite-date-keys.ts).
 */
import { FTS_ROWID } from "./sqlite-columns.js";
import type { StatementCache } from "./sqlite-connection.js";
import type { HitFilter } from "./sqlite-newest-hits.js";
import {
  FTS_GATHER_COST_US as GATHER_COST_US,
  HIT_SAMPLE_POSTS as SAMPLE_POSTS,
  EXACT_HITS_BELOW as SMALL_HITS,
  FTS_TEST_COST_US as TEST_COST_US,
} from "./sqlite-plan-costs.js";
import { segmentCount } from "./sqlite-search-maintenance.js";
import { newestKeyRange } from "./sqlite-term-sample.js";

function languageClause(filter: HitFilter, column: string): string {
  return filter.languages === null ? "" : `AND ${column} IN (SELECT value FROM json_each(?))`;
}

function languageParam(filter: HitFilter): string[] {
  return filter.languages === null ? [] : [filter.languages];
}

/** An estimate of how many posts match (exact below SMALL_HITS), and how many posts there are (about). */
function estimateHits(stmts: StatementCache, filter: HitFilter): { hits: number; posts: number } {
  const small = stmts
    .get("SELECT count(*) FROM (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? LIMIT ?)")
    .pluck()
    .get(filter.match, SMALL_HITS) as number;
  const posts = (stmts.get("SELECT max(id) FROM posts").pluck().get() as number | null) ?? 0;
  if (small < SMALL_HITS) return { hits: small, posts };
  const range = newestKeyRange(stmts, SAMPLE_POSTS);
  if (range === null) return { hits: small, posts };
  const sampled = stmts
    .get(`SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ? AND rowid >= ${FTS_ROWID}`)
    .pluck()
    .get(filter.match, range.from) as number;
  return { hits: Math.max(SMALL_HITS, (sampled / SAMPLE_POSTS) * posts), posts };
}

/** The keys of the first `want` clicked hits by walking the clicked posts, or null when over budget. */
export function walkClicked(
  stmts: StatementCache,
  filter: HitFilter,
  want: number,
  budgetTests: number,
): number[] | null {
  const next = stmts
    .get(`SELECT clicks, id, date_key FROM posts INDEXED BY posts_clicked_by_key
      WHERE clicks > 0 AND (clicks, id) < (?, ?) ${languageClause(filter, "language_id")}
      ORDER BY clicks DESC, id DESC LIMIT ?`)
    .raw();
  const test = stmts
    .get("SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))")
    .pluck();
  const found: number[] = [];
  let after: readonly number[] = [Number.MAX_SAFE_INTEGER, 0];
  let batch = 128;
  let tested = 0;
  while (found.length < want) {
    if (tested >= budgetTests) return null;
    const rows = next.all(after[0], after[1], ...languageParam(filter), batch) as Array<
      [number, number, number]
    >;
    if (rows.length === 0) break;
    const matching = new Set(test.all(filter.match, JSON.stringify(rows.map((r) => r[2]))) as number[]);
    for (const [, , key] of rows) if (matching.has(key) && found.length < want) found.push(key);
    tested += rows.length;
    after = rows[rows.length - 1]!;
    batch = Math.min(batch * 2, 2048);
  }
  return found;
}

/** The keys of the first `want` clicked hits by gathering every hit. */
export function gatherClicked(stmts: StatementCache, filter: HitFilter, want: number): number[] {
  return stmts
    .get(`SELECT p.date_key FROM posts p INDEXED BY posts_clicked_by_key
      WHERE p.clicks > 0 AND p.date_key IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?)
      ${languageClause(filter, "p.language_id")} ORDER BY p.clicks DESC, p.id DESC LIMIT ?`)
    .pluck()
    .all(filter.match, ...languageParam(filter), want) as number[];
}

/**
 * The keys of hits `offset` to `offset + limit` most clicked first.
 *
 * @example
 * mostClickedHitPage(stmts, { match: '"rust"', languages: null }, 0, 20);
 */
export function mostClickedHitPage(
  stmts: StatementCache,
  filter: HitFilter,
  offset: number,
  limit: number,
): number[] {
  const want = offset + limit;
  const { hits, posts } = estimateHits(stmts, filter);
  const gatherCost = hits * GATHER_COST_US;
  const testsNeeded = (want * Math.max(posts, 1)) / Math.max(hits, 1);
  // A test seeks in every segment of the index; gathering reads each hit once whatever the segments.
  const testCost = TEST_COST_US * Math.max(1, segmentCount(stmts));
  let clicked: number[] | null = null;
  if (testsNeeded * testCost < gatherCost) {
    clicked = walkClicked(stmts, filter, want, Math.ceil((2 * gatherCost) / testCost));
  }
  clicked ??= gatherClicked(stmts, filter, want);
  if (clicked.length >= want) return clicked.slice(offset);
  // Every clicked hit is known: the rest of the page is unclicked hits, highest id first.
  const unclicked = stmts
    .get(`SELECT p.date_key FROM posts_fts t CROSS JOIN posts p INDEXED BY posts_by_date_key
      ON p.date_key = t.rowid WHERE posts_fts MATCH ? AND p.clicks = 0
      ORDER BY p.id DESC LIMIT ? OFFSET ?`)
    .pluck()
    .all(
      filter.match,
      want - Math.max(offset, clicked.length),
      Math.max(0, offset - clicked.length),
    ) as number[];
  return [...clicked.slice(offset), ...unclicked];
}
