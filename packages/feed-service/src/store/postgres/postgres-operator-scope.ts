/**
 * What a search with operators (spec §4) is limited to, in the terms the store keeps indexes and
 * counts for: its languages (`lang:`, the `languageIds` parameter), its feeds (`feed:`) and its UTC
 * days (`after:`, `before:`), read from the clauses that hold one such filter alone (ANDed with
 * the rest of the query). Each becomes part of the plan, not a check on every post read:
 * - languages and days are facets of the operators' GIN index (postgres-search-facets.ts), so
 *   GIN never hands over a post of another language or day; the days' posts are counted in
 *   `scope_days`, so a tier of the newest days is sized inside the date bounds;
 * - a few feeds are facets too (` feed 12`); many feeds are a condition on `posts_by_feed`
 *   (feed_id, post_date), whose bitmap PostgreSQL ANDs with GIN's: an OR of hundreds of facets
 *   costs GIN a test of each of them for every candidate (bench/NOTES.md).
 * The filters stay checks on the row as well, so that every plan is exact whatever it narrows.
 */
import { isFilter, type SearchQuery } from "../../search/search-query.js";
import { rows, type Sql } from "./postgres-connection.js";
import { DAY_MS } from "./postgres-page-seek.js";
import { TIER_MONTHS_READ } from "./postgres-plan-costs.js";
import { MONTH_DAYS } from "./postgres-scope-months.js";
import { dayRangeFacet, languagesFacet, sinceDayFacet } from "./postgres-search-facets.js";

/** A `feed:` of at most this many feeds narrows inside GIN; more go through posts_by_feed. */
export const MAX_FEED_FACETS = 32;

export interface Scope {
  /** The posts' languages, or null for every language. */
  languageIds: readonly number[] | null;
  /** The posts' feeds, or null for every feed. */
  feedIds: readonly number[] | null;
  /** The first and last UTC day of the posts (inclusive); null: unbounded. */
  fromDay: number | null;
  lastDay: number | null;
}

function intersect(a: readonly number[] | null, b: readonly number[]): readonly number[] {
  return a === null ? [...new Set(b)] : a.filter((id) => b.includes(id));
}

/** The scope of `query` within `languageIds` (null: every language). */
export function scopeOf(query: SearchQuery, languageIds: readonly number[] | null): Scope {
  const scope: Scope = { languageIds, feedIds: null, fromDay: null, lastDay: null };
  for (const clause of query.filterClauses ?? []) {
    const only = clause.length === 1 ? clause[0]! : null;
    if (only === null || !isFilter(only)) continue;
    if (only.kind === "feed" && only.feedIds !== undefined) {
      scope.feedIds = intersect(scope.feedIds, only.feedIds);
    } else if (only.kind === "lang" && only.languageIds !== undefined) {
      scope.languageIds = intersect(scope.languageIds, only.languageIds);
    } else if (only.kind === "date") {
      // after:/before: are whole UTC days (search-operators.ts): day bounds are exact.
      if (only.from !== null)
        scope.fromDay = Math.max(scope.fromDay ?? -Infinity, Math.floor(only.from / DAY_MS));
      if (only.until !== null) {
        scope.lastDay = Math.min(scope.lastDay ?? Infinity, Math.ceil(only.until / DAY_MS) - 1);
      }
    }
  }
  return scope;
}

/**
 * Migration 44: posts by feed and language, in date order within them. A `feed:` with a language
 * none of its feeds writes is known empty (feedsInLanguages) before any of their posts is read,
 * and one feed's posts in one language are listed newest first up to the page.
 */
export const feedLanguagesSchema =
  "CREATE INDEX IF NOT EXISTS posts_by_feed_language ON posts (feed_id, language_id, post_date, id)";

/**
 * `scope` with no feed left when none of its feeds holds a post in one of its languages: one
 * probe of posts_by_feed_language a feed at most (stopping at the first post found), bounded by
 * the feed list the search carries. A probe per feed (LATERAL ... LIMIT 1), not one scan of all
 * of them: the planner, taking feeds and languages as independent, may answer one EXISTS over
 * all the feeds from the language's posts, expecting a hit soon, and read every one of them
 * when there is none (bench/NOTES.md). Otherwise the same scope: the feeds that write none are
 * not dropped, as the plans' estimates take the feeds' posts as independent of their language
 * (postgres-operator-plan.ts, expected), and a narrower list made a worse choice (bench/NOTES.md).
 */
export async function feedsInLanguages(sql: Sql, scope: Scope): Promise<Scope> {
  const { feedIds, languageIds } = scope;
  if (feedIds === null || languageIds === null || feedIds.length === 0 || languageIds.length === 0)
    return scope;
  const [row] = await rows<{ any: boolean }>(
    sql,
    `SELECT EXISTS (SELECT FROM unnest($1::int[]) f CROSS JOIN LATERAL (
        SELECT FROM posts p WHERE p.feed_id = f AND p.language_id = ANY($2::int[]) LIMIT 1) hit) AS any`,
    [feedIds, languageIds],
  );
  return row!.any ? scope : { ...scope, feedIds: [] };
}

/** Whether no post can be in scope (an empty list of feeds or languages, or days out of order). */
export function emptyScope(scope: Scope): boolean {
  return (
    scope.feedIds?.length === 0 ||
    scope.languageIds?.length === 0 ||
    (scope.fromDay !== null && scope.lastDay !== null && scope.fromDay > scope.lastDay)
  );
}

/** Whether the feeds narrow inside GIN (a few) rather than through posts_by_feed. */
export function feedsInIndex(feedIds: readonly number[] | null): feedIds is readonly number[] {
  return feedIds !== null && feedIds.length <= MAX_FEED_FACETS;
}

/** The OR of the feeds' facets. */
export function feedsFacet(feedIds: readonly number[]): string {
  return `(${feedIds.map((id) => `' feed ${Number(id)}'`).join(" | ")})`;
}

/** Days of the scope from `first` on (null: from its start), as `window` bounds tiers. */
export interface Window {
  first: number | null;
  last: number | null;
}

export function windowOf(scope: Scope, tierFirst: number | null = null): Window {
  const first =
    tierFirst === null
      ? scope.fromDay
      : scope.fromDay === null
        ? tierFirst
        : Math.max(tierFirst, scope.fromDay);
  return { first, last: scope.lastDay };
}

/**
 * The scope's facets within `window`, ANDed (null when none narrows): its languages, its feeds
 * when few (and `feedFacets`: the index holds them), its days when `days.narrow` (a window that leaves most posts in costs GIN a test of
 * each of its lexemes for every candidate, and saves little). `newest` is the newest day with
 * posts now, where an open window ends; `oldest` the oldest, where a window without a first day
 * starts.
 */
export function scopeFacet(
  scope: Scope,
  window: Window,
  days: { newest: number; oldest: number; narrow: boolean },
  feedFacets = true,
): string | null {
  const parts: string[] = [];
  if (scope.languageIds !== null) parts.push(languagesFacet(scope.languageIds));
  if (feedFacets && feedsInIndex(scope.feedIds)) parts.push(feedsFacet(scope.feedIds));
  if (days.narrow && window.last !== null) {
    const first = Math.max(window.first ?? days.oldest, days.oldest);
    parts.push(first <= window.last ? dayRangeFacet(first, window.last) : "' day none'");
  } else if (days.narrow && window.first !== null && window.first > days.oldest) {
    parts.push(sinceDayFacet(window.first, Math.max(days.newest, window.first)));
  }
  return parts.length === 0 ? null : parts.join(" & ");
}

/**
 * Conditions on indexed columns that PostgreSQL may AND as bitmaps with GIN's, with their
 * values (`?` placeholders, for Where.add): many feeds (any, without `feedFacets`) through posts_by_feed, within the window's
 * days when `narrow` (each feed's range of the index). Null when none.
 */
export function scopeBitmap(
  scope: Scope,
  window: Window,
  narrow: boolean,
  feedFacets = true,
): { sql: string; args: unknown[] } | null {
  if (scope.feedIds === null || (feedFacets && feedsInIndex(scope.feedIds))) return null;
  const parts = ["p.feed_id = ANY(?::int[])"];
  const args: unknown[] = [scope.feedIds];
  if (!narrow) return { sql: parts[0]!, args };
  if (window.first !== null) {
    parts.push("p.post_date >= ?::bigint");
    args.push(window.first * DAY_MS);
  }
  if (window.last !== null) {
    parts.push("p.post_date < ?::bigint");
    args.push((window.last + 1) * DAY_MS);
  }
  return { sql: parts.join(" AND "), args };
}

/** A range of days (one day when first = last) and the posts of the scope in it. */
interface Counted {
  first: number;
  last: number;
  n: number;
}

/**
 * The posts of a scope's languages per day within its days, newest first, counted as the post
 * lists' deep pages are (postgres-page-seek.ts): the window's last month by its days (the newest
 * month is under way, and a window may end inside it), then whole months (`scope_months`, a row
 * per category, language and 28 days) a few at a time, the days of a month read only when a
 * count lands in it, and the window's first month by its days. What one search reads is kept
 * for its later tiers. The feeds are not counted (their days are nearly a row per post in
 * `post_days`): a tier sized on all feeds' posts measures the feeds' share when it falls short.
 */
export class ScopeDays {
  readonly #sql: Sql;
  readonly #languageIds: readonly number[] | null;
  readonly #from: number;
  readonly #last: number;
  /** Counted so far, newest first, contiguous. */
  readonly #counts: Counted[] = [];
  /** What to read next: the last month's days, months down from #month, the first month's days, nothing. */
  #next: "last" | "months" | "first" | "done" = "last";
  #month = 0;
  #chunk = TIER_MONTHS_READ;

  /** `days`: the newest and oldest days with posts now (of all languages). */
  constructor(sql: Sql, scope: Scope, days: { newest: number; oldest: number }) {
    this.#sql = sql;
    this.#languageIds = scope.languageIds;
    this.#last = Math.min(scope.lastDay ?? days.newest, days.newest);
    this.#from = Math.max(scope.fromDay ?? days.oldest, days.oldest);
    if (this.#from > this.#last) this.#next = "done";
  }

  /**
   * The first day of the newest days that hold `target` posts, with the posts they hold; null
   * when all the scope's days hold fewer.
   */
  async holding(target: number): Promise<{ first: number; posts: number } | null> {
    let posts = 0;
    for (let i = 0; ; ) {
      if (i === this.#counts.length && !(await this.#readMore())) return null;
      const c = this.#counts[i]!;
      if (posts + c.n < target) {
        posts += c.n;
        i++;
      } else if (c.first === c.last) {
        return { first: c.first, posts: posts + c.n };
      } else {
        // The count lands in this month: its days instead.
        this.#counts.splice(i, 1, ...(await this.#perDay(c.first, c.last)));
      }
    }
  }

  #language(params: unknown[]): string {
    return this.#languageIds ? `AND language_id = ANY($${params.push(this.#languageIds)}::int[])` : "";
  }

  async #perDay(first: number, last: number): Promise<Counted[]> {
    const params: unknown[] = [Math.max(first, this.#from), Math.min(last, this.#last)];
    const days = await rows<{ day: number; n: number }>(
      this.#sql,
      `SELECT day, sum(posts)::float8 AS n FROM scope_days WHERE posts > 0 AND day >= $1 AND day <= $2
        ${this.#language(params)} GROUP BY day ORDER BY day DESC`,
      params,
    );
    return days.map((d) => ({ first: d.day, last: d.day, n: d.n }));
  }

  /** Reads the next counts; false when every day of the window is counted. */
  async #readMore(): Promise<boolean> {
    const lastMonth = Math.floor(this.#last / MONTH_DAYS);
    const firstMonth = Math.floor(this.#from / MONTH_DAYS);
    const read = this.#counts.length;
    while (this.#counts.length === read && this.#next !== "done") {
      if (this.#next === "last") {
        this.#counts.push(...(await this.#perDay(lastMonth * MONTH_DAYS, this.#last)));
        this.#next = lastMonth > firstMonth + 1 ? "months" : lastMonth > firstMonth ? "first" : "done";
        this.#month = lastMonth - 1;
      } else if (this.#next === "months") {
        const params: unknown[] = [Math.max(firstMonth + 1, this.#month - this.#chunk + 1), this.#month];
        const months = await rows<{ month: number; n: number }>(
          this.#sql,
          `SELECT month, sum(posts)::float8 AS n FROM scope_months WHERE posts > 0 AND month >= $1 AND month <= $2
            ${this.#language(params)} GROUP BY month ORDER BY month DESC`,
          params,
        );
        for (const m of months) {
          this.#counts.push({ first: m.month * MONTH_DAYS, last: (m.month + 1) * MONTH_DAYS - 1, n: m.n });
        }
        this.#month = (params[0] as number) - 1;
        this.#chunk *= 2;
        if (this.#month <= firstMonth) this.#next = "first";
      } else {
        this.#counts.push(
          ...(await this.#perDay(firstMonth * MONTH_DAYS, (firstMonth + 1) * MONTH_DAYS - 1)),
        );
        this.#next = "done";
      }
    }
    return this.#counts.length > read;
  }
}
