/**
 * A category's posts in a list of languages (getPostsByCategory with languageIds). The indexes
 * hold two lists in date order, the category's (posts_by_category) and each language's
 * (posts_by_language), and their intersection may be small or empty (the demo's largest
 * category holds no Dutch post): a walk of one side tested for the other then passes over the
 * whole side to find none. The roll-ups say how many posts the intersection holds
 * (`language_totals`, per language and category) and on which days (`scope_days`), so the plan
 * reads those first: a page past the intersection's end costs the counts only, and when a walk
 * would pass over many posts per post kept, the page's days are read from `scope_days` (whose
 * rows of the intersection are at most its posts) and the walk reads only those days of the
 * smaller side. Spec §4: paging is offset/limit over date order, exact.
 */
import { rows, type Sql } from "./postgres-connection.js";
import { DAY_MS, type PageScope, type PageStart } from "./postgres-page-seek.js";
import { CROSS_POST_COST, SEEK_FROM_OFFSET } from "./postgres-plan-costs.js";

/** Posts of the intersection and of each side, from the roll-ups. */
export interface ScopeSizes {
  inScope: number;
  category: number;
  languages: number;
}

/** The side a page's walk reads in date order, testing each post for the other. */
export type CrossSide = "category" | "languages";

/**
 * A page of a category within languages read from its days: the side walked, where the page
 * starts (the newest day's end, the posts of that day to skip) and its oldest day (a bound that
 * trims the walk, never a row).
 */
export interface CrossPlan {
  side: CrossSide;
  start: PageStart;
  notBefore: number;
}

export async function scopeSizes(
  sql: Sql,
  categoryId: number,
  languageIds: readonly number[],
): Promise<ScopeSizes> {
  // language_totals rows per language are categories x stripes, scope_months rows per category
  // months x languages: both bounded by the catalogue and the months, not by the posts.
  const [found] = await rows<ScopeSizes>(
    sql,
    `SELECT coalesce(sum(t.posts) FILTER (WHERE t.category_key = $1), 0)::float8 AS "inScope",
        coalesce(sum(t.posts), 0)::float8 AS languages,
        (SELECT coalesce(sum(m.posts), 0) FROM scope_months m WHERE m.category_id = $1)::float8 AS category
      FROM language_totals t WHERE t.language_id = ANY($2::int[])`,
    [categoryId, languageIds],
  );
  return found!;
}

/**
 * The days a page covers, from the intersection's posts per day (`scope_days`): the newest day
 * (the page's start, with the posts of that day to skip) and the oldest. The counts of the day of
 * `sinceDate` also hold the posts before it: that day is then the oldest in scope, and the page
 * query leaves those out (a shorter page, as a plain walk gives). Not for lists since a post id,
 * whose day counts are not those of the list.
 */
export async function pageDays(
  sql: Sql,
  scope: PageScope & { categoryId: number; languageIds: readonly number[] },
  page: { limit: number; offset: number },
): Promise<{ start: PageStart; notBefore: number } | null> {
  const params: unknown[] = [scope.categoryId, scope.languageIds, page.offset, page.limit];
  const since =
    scope.sinceDate == null ? "" : `AND d.day >= post_day($${params.push(scope.sinceDate)}::bigint)`;
  const [found] = await rows<{ first: number | null; last: number | null; newer: number | null }>(
    sql,
    `WITH per_day AS (
        SELECT d.day, sum(d.posts) AS n FROM scope_days d
          WHERE d.category_id = $1 AND d.language_id = ANY($2::int[]) AND d.posts > 0 ${since}
          GROUP BY d.day),
      run AS (SELECT day, n, sum(n) OVER (ORDER BY day DESC) AS running FROM per_day)
      SELECT max(day) AS first, min(day) AS last, min(running - n)::float8 AS newer FROM run
        WHERE running > $3 AND running - n < $3::bigint + $4::bigint`,
    params,
  );
  if (!found || found.first === null || found.last === null || found.newer === null) return null;
  return {
    start: { before: (found.first + 1) * DAY_MS, skip: page.offset - found.newer },
    notBefore: found.last * DAY_MS,
  };
}

/**
 * The plan of one page of a category within languages, from the roll-ups' counts: null when the
 * page is empty, "walk" when a walk of the category in date order finds the page soon enough (the
 * query of the other lists, from the day seek past deep offsets), else the page's days and the
 * side to walk within them. A walk of the category passes over about category / intersection
 * posts per post it keeps; when that times the page's depth outweighs adding up the
 * intersection's day rows (at most its posts), the days come first.
 */
export async function crossPlan(
  sql: Sql,
  scope: PageScope & { categoryId: number; languageIds: readonly number[] },
  page: { limit: number; offset: number },
): Promise<CrossPlan | "walk" | null> {
  const sizes = await scopeSizes(sql, scope.categoryId, scope.languageIds);
  // The counts hold every post of the scope: those since a date or post id are no more.
  if (sizes.inScope <= page.offset) return null;
  const depth = Math.min(page.offset, SEEK_FROM_OFFSET) + page.limit;
  const walked = (depth * sizes.category) / sizes.inScope;
  // A list since a post id has day counts of its own (the ranks): it walks, from its own seek.
  if (scope.sincePostId != null || walked * CROSS_POST_COST <= sizes.inScope) return "walk";
  const days = await pageDays(sql, scope, page);
  if (days === null) return null;
  const side: CrossSide = sizes.languages < sizes.category ? "languages" : "category";
  return { side, start: days.start, notBefore: days.notBefore };
}
