/**
 * Search with the operators of spec §4 on PostgreSQL (`word*`, `title:`, `feed:`, `lang:`,
 * `after:`, `before:`). The words become one tsquery (prefixes and the title weight in its syntax:
 * postgres-term-operators.ts), matched through the operators' own GIN index (migration 16, see
 * OPERATOR_EXPRESSION); the filters become SQL on the post's row (`feed_id`, `language_id`,
 * `post_date`). The plans:
 * - relevance and date order with words: the newest matches from a tier of the newest days,
 *   through GIN (newestTier); relevance ranks the 10,000 newest, as spec §4 allows;
 * - clicks order with words: few hits (by the statistics) are read whole through GIN; many are
 *   found by walking the filtered posts in clicks order, each checked on its own vector, until
 *   the page is full (a bounded walk, then GIN);
 * - no words: the filtered posts in order through the table's indexes.
 */
import {
  isFilter,
  type PostFilter,
  type SearchAtom,
  type SearchQuery,
  type SearchTerm,
} from "../../search/search-query.js";
import type { PostPage, PostRecord, SearchSort } from "../store.js";
import { POST_COLUMNS, POST_JOINS, Where } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";
import { sinceDayFacet } from "./postgres-search-facets.js";
import { postsPerDay } from "./postgres-search-plan.js";
import { SEARCH_SCORE, toTsquery } from "./postgres-text-search.js";

/**
 * The operators' own GIN index (migration 16): each post's words and facets
 * (postgres-search-facets.ts) without the pairs of neighbouring words, plus the first three
 * letters of each word (` pfx pro`), each title word (` ttl the`, weight A in the vector) and the
 * post's feed (` feed 12`): lexemes no search word can equal (they start with a space). A prefix of three letters is then one posting list that GIN
 * intersects with the day facets by skipping, where `'pro':*` collects the lists of every word
 * beginning with it, whole (and in the word plans' index, every pair lexeme too); a `feed:` of a
 * few feeds and a `title:` word narrow inside the index the same way (weights are not in GIN: a
 * weighted query rechecks every post's vector, read out of TOAST).
 */
export const OPERATOR_EXPRESSION =
  "(p.search_vector || post_facets(p.post_date, p.language_id) || operator_facets(p.search_vector, p.feed_id))";

export const operatorIndexSchema = `
CREATE FUNCTION operator_facets(search_vector tsvector, feed_id integer) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN array_to_tsvector(ARRAY(SELECT DISTINCT ' pfx ' || left(w, 3) FROM unnest(tsvector_to_array(search_vector)) w
      WHERE length(w) >= 3)
    || ARRAY(SELECT ' ttl ' || w FROM unnest(tsvector_to_array(ts_filter(search_vector, '{a}'))) w
      WHERE octet_length(w) <= 2040)
    || ARRAY[' feed ' || feed_id]);
SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX posts_search_operators ON posts
  USING GIN ((search_vector || post_facets(post_date, language_id) || operator_facets(search_vector, feed_id)));
`;

/** Letters of a prefix that the index holds as a lexeme of its own. */
const PREFIX_LETTERS = 3;
/** The longest title word (bytes) the index holds as a ` ttl ` lexeme (PostgreSQL's limit is 2,047). */
const MAX_TITLE_LEXEME_BYTES = 2_040;
/** A `feed:` of at most this many feeds narrows inside the index. */
const MAX_FEED_FACETS = 32;

/**
 * The tsquery of the words as the operators' index answers it: a `title:` word outside a phrase
 * becomes its ` ttl ` lexeme (`'the':A` → `' ttl the'`), and a prefix outside a phrase its first
 * letters' lexeme (`'pro':*` → `' pfx pro'`, `'prog':*` → `(' pfx pro' & 'prog':*)`: a post holds
 * a word beginning with `prog` only if it holds one beginning with `pro`). Anything else loses its
 * weight: a superset, which `Plan.verify` narrows (a phrase's positions are checked by GIN itself).
 */
function indexLexemes(query: string): string {
  return query.replace(
    /'((?:[^']|'')+)'(?::(\*?)(A?))?/g,
    (whole: string, quoted: string, star: string | undefined, weight: string | undefined, at: number) => {
      const inPhrase =
        query.slice(Math.max(0, at - 4), at) === "<-> " || query.startsWith(" <->", at + whole.length);
      const lexeme = quoted.replace(/''/g, "'");
      const prefix = star === "*";
      if (weight === "A" && !prefix && !inPhrase && Buffer.byteLength(lexeme) <= MAX_TITLE_LEXEME_BYTES) {
        return `' ttl ${quoted}'`;
      }
      const plain = `'${quoted}'${prefix ? ":*" : ""}`;
      const letters = Array.from(lexeme);
      if (!prefix || inPhrase || letters.length < PREFIX_LETTERS) return plain;
      const first = `' pfx ${letters.slice(0, PREFIX_LETTERS).join("").replace(/'/g, "''")}'`;
      return letters.length === PREFIX_LETTERS ? first : `(${first} & ${plain})`;
    },
  );
}

/** Up to this many hits, the hits are read whole; beyond, the filtered posts are walked. */
const FEW_HITS = 2_000;
/** Relevance ranks at most this many of the newest matches (spec §4). */
const RANKED_NEWEST = 10_000;

/** SQL with `?` placeholders (numbered by `Where`) and their values. */
interface Part {
  sql: string;
  args: unknown[];
}

function ids(values: readonly number[] | undefined, what: string): readonly number[] {
  if (values === undefined) throw new Error(`${what} filter reached the store unresolved`);
  return values;
}

function and(parts: Part[]): Part {
  if (parts.length === 0) return { sql: "TRUE", args: [] };
  return { sql: parts.map((w) => `(${w.sql})`).join(" AND "), args: parts.flatMap((w) => w.args) };
}

function or(parts: Part[]): Part {
  return { sql: parts.map((w) => `(${w.sql})`).join(" OR "), args: parts.flatMap((w) => w.args) };
}

function filterPart(filter: PostFilter): Part {
  switch (filter.kind) {
    case "feed":
      return { sql: "p.feed_id = ANY(?::int[])", args: [ids(filter.feedIds, "feed")] };
    case "lang":
      return { sql: "p.language_id = ANY(?::int[])", args: [ids(filter.languageIds, "lang")] };
    case "date": {
      const parts: Part[] = [];
      if (filter.from !== null) parts.push({ sql: "p.post_date >= ?::bigint", args: [filter.from] });
      if (filter.until !== null) parts.push({ sql: "p.post_date < ?::bigint", args: [filter.until] });
      return and(parts);
    }
  }
}

function atomPart(atom: SearchAtom): Part {
  if (isFilter(atom)) return filterPart(atom);
  return { sql: "p.search_vector @@ ?::tsquery", args: [toTsquery({ clauses: [[atom]], excluded: [] })] };
}

interface Plan {
  /** The tsquery of the words, or null when the query has none to match. */
  words: string | null;
  /**
   * What the operators' index matches of the words (null when nothing): the words without
   * `title:`'s weight, and without excluded `title:` terms. A superset of `words` that GIN answers
   * without reading a post (weights would make it recheck each post's vector, out of TOAST).
   */
  index: string | null;
  /** Each clause of the words without `title:`'s weight, as the statistics of `search_vector` estimate them. */
  estimates: string[];
  /**
   * The rest of the words, checked on the post: `title:` clauses on `rank_vector` (the title and
   * feed name lexemes of `search_vector`, with their weights and positions: a few bytes), a clause
   * mixing `title:` and other terms on `search_vector` itself.
   */
  verify: Part;
  filters: Part;
  /** The only feed the posts may come from, when a single `feed:` of one feed says so. */
  oneFeed: number | null;
  /** Whether a word is a prefix: the index then reads every pair of words beginning with it. */
  prefix: boolean;
}

function planOf(query: SearchQuery, languageIds: readonly number[] | null): Plan {
  const words = toTsquery({ clauses: query.clauses, excluded: query.excluded });
  const parts: Part[] = [];
  if (words === null && query.excluded.length > 0) {
    const anyExcluded = toTsquery({ clauses: [query.excluded as SearchTerm[]], excluded: [] });
    parts.push({ sql: "NOT (p.search_vector @@ ?::tsquery)", args: [anyExcluded] });
  }
  let oneFeed: number | null = null;
  for (const clause of query.filterClauses ?? []) {
    parts.push(or(clause.map(atomPart)));
    const only = clause.length === 1 ? clause[0]! : null;
    if (only !== null && isFilter(only) && only.kind === "feed" && only.feedIds?.length === 1) {
      oneFeed = only.feedIds[0]!;
    }
  }
  for (const filter of query.excludedFilters ?? []) {
    const w = filterPart(filter);
    parts.push({ sql: `NOT (${w.sql})`, args: w.args });
  }
  if (languageIds !== null) parts.push({ sql: "p.language_id = ANY(?::int[])", args: [languageIds] });
  const prefix = [...query.clauses.flat(), ...query.excluded].some((t) => t.prefix === true);
  const indexed = indexedWords(query);
  // A clause of one `feed:` of a few feeds narrows inside the index too (the row filter stays).
  for (const clause of query.filterClauses ?? []) {
    const only = clause.length === 1 ? clause[0]! : null;
    if (indexed.index === null || only === null || !isFilter(only) || only.kind !== "feed") continue;
    const feedIds = ids(only.feedIds, "feed");
    if (feedIds.length === 0 || feedIds.length > MAX_FEED_FACETS) continue;
    indexed.index = `${indexed.index} & (${feedIds.map((id) => `' feed ${Number(id)}'`).join(" | ")})`;
  }
  return { words, ...indexed, filters: and(parts), oneFeed, prefix };
}

function indexedWords(query: SearchQuery): { index: string | null; estimates: string[]; verify: Part } {
  const untitled = (t: SearchTerm): SearchTerm => ({ ...t, titleOnly: false });
  const verify: Part[] = [];
  for (const clause of query.clauses) {
    if (!clause.some((t) => t.titleOnly === true)) continue;
    const vector = clause.every((t) => t.titleOnly === true) ? "p.rank_vector" : "p.search_vector";
    verify.push({ sql: `${vector} @@ ?::tsquery`, args: [toTsquery({ clauses: [clause], excluded: [] })] });
  }
  const titled = query.excluded.filter((t) => t.titleOnly === true);
  if (titled.length > 0) {
    verify.push({
      sql: "NOT (p.rank_vector @@ ?::tsquery)",
      args: [toTsquery({ clauses: [titled], excluded: [] })],
    });
  }
  const excluded = query.excluded.filter((t) => t.titleOnly !== true);
  const index = toTsquery({ clauses: query.clauses, excluded });
  return {
    index: index === null ? null : indexLexemes(index),
    estimates: query.clauses.flatMap((c) => toTsquery({ clauses: [c.map(untitled)], excluded: [] }) ?? []),
    verify: and(verify),
  };
}

const ORDER: Record<"date" | "clicks", { outer: string; inner: string }> = {
  date: { outer: "post_date DESC, id DESC", inner: "p.post_date DESC, p.id DESC" },
  clicks: { outer: "clicks DESC, id DESC", inner: "p.clicks DESC, p.id DESC" },
};

/** The words matched through the operators' index, narrowed by `facet` when given, then verified. */
function indexedMatch(where: Where, plan: Plan & { index: string }, facet: string | null = null): Where {
  where.add(
    `${OPERATOR_EXPRESSION} @@ ?::tsquery`,
    facet === null ? plan.index : `(${plan.index}) & ${facet}`,
  );
  return where.add(plan.verify.sql, ...plan.verify.args);
}

/** The planner's estimate of the posts holding the words (from the vectors' statistics: cheap). */
async function estimatedHits(sql: Sql, words: string): Promise<{ hits: number; posts: number }> {
  const [plan] = (
    await sql.query("EXPLAIN (FORMAT JSON) SELECT 1 FROM posts p WHERE p.search_vector @@ $1::tsquery", [
      words,
    ])
  ).rows as Array<{ "QUERY PLAN": Array<{ Plan: { "Plan Rows": number } }> }>;
  const [total] = await rows<{ n: number }>(
    sql,
    "SELECT greatest(reltuples, 1)::float8 AS n FROM pg_class WHERE oid = 'posts'::regclass",
  );
  return { hits: Math.max(1, plan!["QUERY PLAN"][0]!.Plan["Plan Rows"]), posts: total!.n };
}

/**
 * Whether reading the hits through the GIN index costs less than walking the posts in order
 * until `need` of them match: the walk reads about need × posts / hits posts, the index about the
 * hits. (Counting the hits through the index instead would read every posting list of a prefix,
 * pairs of neighbouring words included: `'the':*` reads each `the ...` pair, seconds.)
 */
function ginFirst(estimate: { hits: number; posts: number }, need: number): boolean {
  return estimate.hits <= FEW_HITS || estimate.hits * estimate.hits <= need * estimate.posts;
}

/** A walk reads at most this many times the posts the estimate says it needs, and never more than WALK_MAX. */
const WALK_SLACK = 8;
const WALK_MAX = 20_000;

/**
 * The ids of the posts that pass `plan`, in `order`, from `offset`, at most `limit`: the hits
 * filtered when the index reads less, else the filtered posts walked in order, each checked on
 * its vector. The walk is bounded: words common in all posts may be rare among the filtered ones
 * (`lang:de the`), and a walk that reads its bound without filling the page gives way to the
 * index.
 */
async function orderedIds(
  sql: Sql,
  plan: Plan,
  order: "date" | "clicks",
  offset: number,
  limit: number,
): Promise<number[]> {
  const need = offset + limit;
  if (order === "date" && plan.words !== null && plan.index !== null) {
    // The newest matches come from a tier of the newest days through GIN: no post's vector is
    // read out of TOAST, as a walk of the date index does for each post it tests.
    return newestTier(sql, { ...plan, words: plan.words, index: plan.index }, need, "date", offset, limit);
  }
  const estimate = plan.words === null ? null : await estimatedHits(sql, plan.words);
  // A prefix walks first whatever the estimate (PostgreSQL's is rough for prefixes, and the index
  // reads every pair of words beginning with it).
  if (estimate !== null && (plan.prefix || !ginFirst(estimate, need))) {
    const bound = Math.min(
      WALK_MAX,
      Math.max(need, Math.ceil((WALK_SLACK * need * estimate.posts) / estimate.hits)),
    );
    const where = new Where();
    // One feed's posts come in date order from posts_by_feed (the equality lets the planner see it).
    if (order === "date" && plan.oneFeed !== null) where.add("p.feed_id = ?", plan.oneFeed);
    where.add(plan.filters.sql, ...plan.filters.args);
    const words = where.next(plan.words);
    const [walk] = await rows<{ ids: number[] | null; scanned: number }>(
      sql,
      `WITH walked AS MATERIALIZED (
          SELECT p.id, p.post_date, p.clicks, p.search_vector @@ ${words}::tsquery AS hit
          FROM posts p ${where.sql} ORDER BY ${ORDER[order].inner} LIMIT ${where.next(bound)})
        SELECT (SELECT count(*) FROM walked)::int AS scanned, (SELECT array_agg(id) FROM (
          SELECT id FROM walked WHERE hit ORDER BY ${ORDER[order].outer}
          LIMIT ${where.next(limit)} OFFSET ${where.next(offset)}) page) AS ids`,
      where.params,
    );
    // The walked posts come first in the order: a full page, or a walk that ran out of posts
    // before its bound, answers exactly.
    const ids = (walk?.ids ?? []).map(Number);
    if (ids.length === limit || (walk?.scanned ?? 0) < bound) return ids;
  }
  const where = new Where();
  if (plan.index !== null) {
    // MATERIALIZED keeps the GIN lookup a plan of its own: told of the LIMIT, the planner could
    // walk the date index instead and test every post.
    indexedMatch(where, { ...plan, index: plan.index }).add(plan.filters.sql, ...plan.filters.args);
    const found = await rows<{ id: number }>(
      sql,
      `WITH m AS MATERIALIZED (SELECT p.id, p.post_date, p.clicks FROM posts p ${where.sql})
        SELECT id FROM m ORDER BY ${ORDER[order].outer} LIMIT ${where.next(limit)} OFFSET ${where.next(offset)}`,
      where.params,
    );
    return found.map((r) => r.id);
  }
  // No words: the filtered posts in order. One feed's come in date order from posts_by_feed.
  if (order === "date" && plan.oneFeed !== null) where.add("p.feed_id = ?", plan.oneFeed);
  where.add(plan.filters.sql, ...plan.filters.args);
  const found = await rows<{ id: number }>(
    sql,
    `SELECT p.id FROM posts p ${where.sql} ORDER BY ${ORDER[order].inner}
      LIMIT ${where.next(limit)} OFFSET ${where.next(offset)}`,
    where.params,
  );
  return found.map((r) => r.id);
}

/**
 * The share of the posts expected to pass the words and filters: that of the rarest clause, by
 * the statistics (cheap). Not the planner's estimate of them all, which takes them for
 * independent: common words go together (`the new`), and so do a feed and its words, so that
 * estimate fell 2.5 times short and the tier read 2.5 times the matches it needed (bench/NOTES.md);
 * a tier too small for rarer combinations measures their share and the next one fits.
 */
async function expectedShare(sql: Sql, plan: Plan): Promise<number> {
  const parts: Part[] = plan.estimates.map((words) => ({
    sql: "p.search_vector @@ ?::tsquery",
    args: [words],
  }));
  if (plan.filters.sql !== "TRUE") parts.push(plan.filters);
  let least = Number.POSITIVE_INFINITY;
  for (const part of parts) {
    const where = new Where().add(part.sql, ...part.args);
    const [explained] = (
      await sql.query(`EXPLAIN (FORMAT JSON) SELECT 1 FROM posts p ${where.sql}`, where.params)
    ).rows as Array<{ "QUERY PLAN": Array<{ Plan: { "Plan Rows": number } }> }>;
    least = Math.min(least, Math.max(1, explained!["QUERY PLAN"][0]!.Plan["Plan Rows"]));
  }
  const [total] = await rows<{ n: number }>(
    sql,
    "SELECT greatest(reltuples, 1)::float8 AS n FROM pg_class WHERE oid = 'posts'::regclass",
  );
  return Math.min(1, least / total!.n);
}

/** A tier of the newest days holds at least this many posts... */
const MIN_TIER_POSTS = 5_000;
/** ...and this many times the posts that should hold the matches (the estimate is rough). */
const TIER_MARGIN = 1.5;

/**
 * One page of the RANKED_NEWEST newest matches ranked (spec §4), in order: those matches read
 * through the operators' index from a tier of the newest days, the fewest that should hold them
 * (the day facets let GIN skip every older post), and scored as they are read (`rank_vector`, a
 * few bytes a post). A tier that falls short sizes the next on the share of matches it found, and
 * the last is every post. Walking the posts in date order instead reads each one's vector out of
 * TOAST (45 µs a post, bench/NOTES.md). Exact: a tier is every post since its first day, so the
 * newest matches of a tier that holds RANKED_NEWEST are the newest of all.
 */
async function rankedNewest(
  sql: Sql,
  plan: Plan & { words: string; index: string },
  offset: number,
  limit: number,
): Promise<number[]> {
  return newestTier(sql, plan, RANKED_NEWEST, "score", offset, limit);
}

/**
 * The `pool` newest matches read from a tier of the newest days (see rankedNewest), and of them
 * the page in `order`: by score, or by date (the date order's page is then the pool's end).
 */
async function newestTier(
  sql: Sql,
  plan: Plan & { words: string; index: string },
  pool: number,
  order: "score" | "date",
  offset: number,
  limit: number,
): Promise<number[]> {
  const perDay = await postsPerDay(sql, null);
  const total = perDay[0]?.total ?? 0;
  let share = await expectedShare(sql, plan);
  for (;;) {
    const target = Math.max(MIN_TIER_POSTS, (pool * TIER_MARGIN) / Math.max(share, 1e-9));
    let days = 0;
    let posts = 0;
    while (days < perDay.length && posts < target) posts += perDay[days++]!.n;
    let facet: string | null = null;
    if (posts >= target && posts < total) {
      // Up to the newest day now, not the counts' newest (they are reused for a while).
      const [newest] = await rows<{ day: number | null }>(sql, "SELECT max(day) AS day FROM post_days");
      facet = sinceDayFacet(perDay[days - 1]!.day, Math.max(perDay[0]!.day, newest?.day ?? 0));
    }
    const where = new Where();
    if (order === "score") where.next(plan.words); // $1, the words SEARCH_SCORE ranks
    indexedMatch(where, plan, facet).add(plan.filters.sql, ...plan.filters.args);
    // OFFSET 0 keeps the GIN lookup a plan of its own (see orderedIds).
    const [found] = await rows<{ n: number; ids: number[] | null }>(
      sql,
      `WITH newest AS MATERIALIZED (
          SELECT id, post_date, score FROM (
            SELECT p.id, p.post_date, ${order === "score" ? SEARCH_SCORE : "0"} AS score FROM posts p ${where.sql} OFFSET 0) m
          ORDER BY post_date DESC, id DESC LIMIT ${where.next(pool)})
        SELECT (SELECT count(*) FROM newest)::int AS n, (SELECT array_agg(id) FROM (
          SELECT id FROM newest ORDER BY ${order === "score" ? "score DESC, id DESC" : "post_date DESC, id DESC"}
          LIMIT ${where.next(limit)} OFFSET ${where.next(offset)}) page) AS ids`,
      where.params,
    );
    if (facet === null || found!.n === pool) return (found!.ids ?? []).map(Number);
    // Fewer matches than the estimate said: the tier measured their share.
    share = Math.min(share / 2, found!.n / posts);
  }
}

/** The page's posts in order, each with its score (1 when the query has no words). */
async function postsOf(
  sql: Sql,
  plan: Plan,
  ids: readonly number[],
): Promise<Array<PostRecord & { score: number }>> {
  if (ids.length === 0) return [];
  const found =
    plan.words === null
      ? await rows<PostRecord & { score: number }>(
          sql,
          `SELECT ${POST_COLUMNS}, 1::float8 AS "score" FROM posts p ${POST_JOINS} WHERE p.id = ANY($1::int[])`,
          [ids],
        )
      : await rows<PostRecord & { score: number }>(
          sql,
          `SELECT ${POST_COLUMNS}, ${SEARCH_SCORE} AS "score" FROM posts p ${POST_JOINS} WHERE p.id = ANY($2::int[])`,
          [plan.words, ids],
        );
  const byId = new Map(found.map((r) => [r.postId, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * One page of a search that uses operators (`usesOperators(query)`), as `searchPosts` answers.
 * Relevance without words (`feed:name after:2026-01-01`) lists the posts newest first, each
 * scored 1.
 */
export async function searchWithOperators(
  sql: Sql,
  page: PostPage & { query: SearchQuery; sort: SearchSort },
): Promise<Array<PostRecord & { score: number }>> {
  if (page.limit === 0 || page.languageIds?.length === 0) return [];
  const plan = planOf(page.query, page.languageIds);
  if (page.sort !== "relevance" || plan.words === null) {
    const order = page.sort === "clicks" ? "clicks" : "date";
    return postsOf(sql, plan, await orderedIds(sql, plan, order, page.offset, page.limit));
  }
  if (page.offset >= RANKED_NEWEST || plan.index === null) return [];
  const limit = Math.min(page.limit, RANKED_NEWEST - page.offset);
  const ids = await rankedNewest(sql, { ...plan, words: plan.words, index: plan.index }, page.offset, limit);
  return postsOf(sql, plan, ids);
}

/** How many posts a search with operators matches, up to `cap + 1` (see postgres-search-count.ts). */
export async function countWithOperators(
  sql: Sql,
  args: { query: SearchQuery; languageIds: readonly number[] | null; cap: number },
): Promise<number> {
  if (args.languageIds?.length === 0) return 0;
  const plan = planOf(args.query, args.languageIds);
  // Common words: count as the search finds them (a bounded walk of the filtered posts first).
  if (plan.words !== null && (plan.prefix || !ginFirst(await estimatedHits(sql, plan.words), args.cap + 1))) {
    return (await orderedIds(sql, plan, "date", 0, args.cap + 1)).length;
  }
  const where = new Where();
  if (plan.index !== null) indexedMatch(where, { ...plan, index: plan.index });
  where.add(plan.filters.sql, ...plan.filters.args);
  const [row] = await rows<{ n: number }>(
    sql,
    `SELECT count(*)::int AS n FROM (SELECT p.id FROM posts p ${where.sql} OFFSET 0 LIMIT ${where.next(args.cap + 1)}) m`,
    where.params,
  );
  return row?.n ?? 0;
}
