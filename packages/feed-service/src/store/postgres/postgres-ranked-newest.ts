/**
 * A relevance page of one counted word (postgres-counted-words.ts, migration 48) with more
 * matches than are ranked, read from its titled matches among the ranked ones alone: relevance
 * ranks the `ranked` newest matches (spec §4), and those whose title or feed name holds the word
 * score above the rest of them (postgres-ranked-titles.ts says why), so when they fill the page,
 * the page is theirs. Which matches are ranked is settled by the last of them, the cut: the word's
 * matches per day say on which day it lies and how many newer ones precede it there, so only that
 * day's matches are read to find it, then the titled matches from it on (operators' index: ` ttl `
 * lexemes, ` feed ` facets, and the day facets since the cut's day), not the ranked matches whole.
 *
 * One statement reads the cut's day, the titled matches and the counts it relied on, in one
 * snapshot: when the counts there differ from those the cut was placed by (a write between), it
 * says so and the caller takes the usual path.
 */
import { rows, type Sql } from "./postgres-connection.js";
import { OPERATOR_EXPRESSION } from "./postgres-operator-plan.js";
import { HEAP_ROW_COST, MAX_TIER_DAYS, MAX_TIER_SHARE, MAX_TITLED_FEEDS } from "./postgres-plan-costs.js";
import { type CurrentFeedNames, feedsNaming } from "./postgres-ranked-titles.js";
import { dayRangeFacet, languagesFacet, sinceDayFacet } from "./postgres-search-facets.js";
import type { SearchKey } from "./postgres-search-key.js";
import { condition, type Match, postsPerDay } from "./postgres-search-plan.js";
import { quoteLexeme, SEARCH_SCORE } from "./postgres-text-search.js";

/** The day of the `ranked`-th newest match of a counted search, its matches, and those up to its end. */
interface CutDay {
  search: number;
  day: number;
  n: number;
  running: number;
}

async function cutDay(
  sql: Sql,
  key: SearchKey,
  languages: readonly number[],
  ranked: number,
): Promise<CutDay | null> {
  // One language (or all, language 0): one row a day, read newest first from the primary key and
  // added up until the cut's day, no further. Several: their rows of every day, added up by day.
  const perDay =
    languages.length === 1
      ? `SELECT day, posts::float8 AS n, sum(posts) OVER (ORDER BY day DESC ROWS UNBOUNDED PRECEDING)::float8 AS running
          FROM search_days WHERE search_id = s.id AND language_id = ($3::int[])[1] AND posts > 0 ORDER BY day DESC`
      : `SELECT day, sum(posts)::float8 AS n, sum(sum(posts)) OVER (ORDER BY day DESC)::float8 AS running
          FROM search_days WHERE search_id = s.id AND language_id = ANY($3::int[]) AND posts > 0 GROUP BY day`;
  const [found] = await rows<CutDay>(
    sql,
    `SELECT s.id AS search, d.day, d.n, d.running FROM counted_searches s CROSS JOIN LATERAL (
        SELECT day, n, running FROM (${perDay}) per_day WHERE running >= $4 ORDER BY day DESC LIMIT 1
      ) d
      WHERE s.index_query = $1 AND s.verify_query IS NOT DISTINCT FROM $2`,
    [key.index, key.verify, languages, ranked],
  );
  return found ?? null;
}

/**
 * Whether the posts since `day` (every language: GIN's time facets hold them all) are few enough
 * for the titled matches' lookup to cost less than reading the ranked matches: GIN passes over at
 * most those posts' items (the time facets since the day are a required entry of the lookup,
 * PostgreSQL's src/backend/access/gin/ginget.c, startScanKey), against a heap row for each ranked
 * match (HEAP_ROW_COST items). Days older than the counts that size the tiers hold too many.
 */
async function fewPostsSince(sql: Sql, day: number, ranked: number): Promise<boolean> {
  const perDay = await postsPerDay(sql, null);
  const oldest = perDay[perDay.length - 1];
  if (oldest === undefined || (perDay.length > MAX_TIER_DAYS && day < oldest.day)) return false;
  let posts = 0;
  for (const d of perDay) if (d.day >= day) posts += d.n;
  return posts <= ranked * HEAP_ROW_COST;
}

/**
 * The page (ids and scores) of the titled matches of `word` among the `ranked` newest matches of
 * `match` (in its languages), or null when the word is not counted, has no more matches than are
 * ranked (postgres-ranked-titles.ts's titledPage answers those), when its titled matches among
 * the ranked ones do not fill the page, or when the counts moved or a feed's name changed since
 * they were read.
 */
export async function titledNewestPage(
  sql: Sql,
  match: Match,
  word: string,
  key: SearchKey,
  page: { offset: number; limit: number },
  feedNames: (sql: Sql) => Promise<CurrentFeedNames>,
  ranked: number,
): Promise<Array<{ id: number; score: number }> | null> {
  const need = page.offset + page.limit;
  // A try that falls short has read the titled matches among the ranked, fewer than the page:
  // at most half the ranked ones, as a tier that falls short costs at most half again.
  if (need > ranked * MAX_TIER_SHARE) return null;
  const languages = match.languageIds ?? [0];
  const cut = await cutDay(sql, key, languages, ranked);
  if (cut === null) return null;
  // The feed names only now: a word not counted, or with few matches, never reads them.
  const names = await feedNames(sql);
  const named = feedsNaming(names.names, word);
  if (names.changes === null || named.length > MAX_TITLED_FEEDS) return null;
  const [newest] = await rows<{ day: number | null }>(
    sql,
    "SELECT max(day) AS day FROM scope_days WHERE posts > 0",
  );
  const last = Math.max(cut.day, newest?.day ?? cut.day);
  if (!(await fewPostsSince(sql, cut.day, ranked))) return null;
  // The matches on days after the cut's, and the cut's place among its day's (newest first).
  const newer = cut.running - cut.n;
  const skip = ranked - 1 - newer;
  const titles = [`' ttl ${quoteLexeme(word).slice(1, -1)}'`, ...named.map((f) => `' feed ${f}'`)];
  const facets = [`(${titles.join(" | ")})`, sinceDayFacet(cut.day, last)];
  if (match.languageIds) facets.push(languagesFacet(match.languageIds));
  const day = condition(match, dayRangeFacet(cut.day, cut.day), 13);
  // `+ 0` keeps the cut a filter on the titled matches GIN hands over: as an index condition, the
  // planner may AND a bitmap of the date index over every newer post with them.
  const found = await rows<{ id: number | null; score: number; titled: number; held: boolean }>(
    sql,
    `WITH day_matches AS MATERIALIZED (SELECT p.id, p.post_date FROM ${day.from} WHERE ${day.sql}),
      cut AS MATERIALIZED (
        SELECT post_date, id FROM day_matches ORDER BY post_date DESC, id DESC OFFSET $4 LIMIT 1
      ),
      held AS MATERIALIZED (
        SELECT (SELECT count(*) FROM day_matches) = $5::bigint
          AND (SELECT coalesce(sum(posts), 0) FROM search_days
                WHERE search_id = $6 AND language_id = ANY($7::int[]) AND day > $8::int) = $9::bigint
          AND NOT EXISTS (SELECT 1 FROM search_days
                WHERE search_id = $6 AND language_id = ANY($7::int[]) AND day > $10::int AND posts > 0)
          AND (SELECT changes FROM feed_name_changes) = $11::bigint AS held
      )
      SELECT t.id, t.score, count(t.id) OVER ()::int AS titled, held.held FROM held LEFT JOIN (
        SELECT p.id, ${SEARCH_SCORE} AS score FROM cut, posts p
          WHERE ${OPERATOR_EXPRESSION} @@ $12::tsquery AND p.rank_vector @@ $1::tsquery
            AND (p.post_date + 0, p.id + 0) >= (cut.post_date, cut.id)
          OFFSET 0
      ) t ON held.held
      ORDER BY t.score DESC, t.id DESC LIMIT $2 OFFSET $3`,
    [
      match.words,
      page.limit,
      page.offset,
      skip,
      cut.n,
      cut.search,
      languages,
      cut.day,
      newer,
      last,
      names.changes,
      facets.join(" & "),
      ...day.params,
    ],
  );
  const first = found[0];
  if (first === undefined || !first.held || first.titled < need) return null;
  return found.map(({ id, score }) => ({ id: id!, score }));
}
