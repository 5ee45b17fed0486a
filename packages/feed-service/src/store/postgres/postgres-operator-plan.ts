/**
 * A search with operators (spec §4) as the PostgreSQL plans read it (postgres-search-operators.ts):
 * the words as one tsquery, the same words as the operators' GIN index answers them, the checks
 * left for the row, the scope (postgres-operator-scope.ts), and what the statistics expect of it.
 */
import {
  isFilter,
  type PostFilter,
  type SearchAtom,
  type SearchQuery,
  type SearchTerm,
} from "../../search/search-query.js";
import { termPhrase } from "../../search/term-phrase.js";
import type { Where } from "./postgres-columns.js";
import { rows, type Sql } from "./postgres-connection.js";
import { FEED_TITLES_EXPRESSION } from "./postgres-feed-titles.js";
import { FEED_WORDS_EXPRESSION } from "./postgres-feed-words.js";
import { withoutImplied } from "./postgres-index-conjuncts.js";
import {
  feedsFacet,
  feedsInIndex,
  type Scope,
  scopeBitmap,
  scopeFacet,
  scopeOf,
  type Window,
} from "./postgres-operator-scope.js";
import { DAY_MS } from "./postgres-page-seek.js";
import { toSearchIndexTsquery } from "./postgres-phrase-pairs.js";
import { SEARCH_EXPRESSION } from "./postgres-search-facets.js";
import { toTsquery } from "./postgres-text-search.js";

/** Letters of a prefix that the index holds as a lexeme of its own. */
const PREFIX_LETTERS = 3;
/** The longest title word (bytes) the index holds as a ` ttl ` lexeme (PostgreSQL's limit is 2,047). */
const MAX_TITLE_LEXEME_BYTES = 2_040;

/**
 * The operators' index expression (migration 16, postgres-search-operators.ts), spelled as
 * queries must spell it to use the index.
 */
export const OPERATOR_EXPRESSION =
  "(p.search_vector || post_facets(p.post_date, p.language_id) || operator_facets(p.search_vector, p.feed_id))";

/** A lexeme of a tsquery as the operators' index holds it, and whether that keeps its weight. */
function indexLexeme(
  query: string,
  whole: string,
  quoted: string,
  star: string | undefined,
  weight: string | undefined,
  at: number,
): { text: string; exact: boolean } {
  const inPhrase =
    query.slice(Math.max(0, at - 4), at) === "<-> " || query.startsWith(" <->", at + whole.length);
  const lexeme = quoted.replace(/''/g, "'");
  const prefix = star === "*";
  if (weight === "A" && !prefix && !inPhrase && Buffer.byteLength(lexeme) <= MAX_TITLE_LEXEME_BYTES) {
    return { text: `' ttl ${quoted}'`, exact: true };
  }
  // GIN holds no positions: a phrase there is a recheck of the indexed expression (below).
  const exact = weight !== "A" && !inPhrase;
  const plain = `'${quoted}'${prefix ? ":*" : ""}`;
  const letters = Array.from(lexeme);
  if (!prefix || inPhrase || letters.length < PREFIX_LETTERS) return { text: plain, exact };
  const first = `' pfx ${letters.slice(0, PREFIX_LETTERS).join("").replace(/'/g, "''")}'`;
  return { text: letters.length === PREFIX_LETTERS ? first : `(${first} & ${plain})`, exact };
}

const TSQUERY_LEXEME = /'((?:[^']|'')+)'(?::(\*?)(A?))?/g;

/**
 * The tsquery of the words as the operators' index answers it: a `title:` word outside a phrase
 * becomes its ` ttl ` lexeme (`'the':A` → `' ttl the'`), and a prefix outside a phrase its first
 * letters' lexeme (`'pro':*` → `' pfx pro'`, `'prog':*` → `(' pfx pro' & 'prog':*)`: a post holds
 * a word beginning with `prog` only if it holds one beginning with `pro`). Anything else loses its
 * weight, and a phrase its order (the AND of its words): a superset, which `Plan.recheck` narrows.
 */
export function indexLexemes(query: string): string {
  const lexemes = query.replace(
    TSQUERY_LEXEME,
    (whole, quoted, star, weight, at) => indexLexeme(query, whole, quoted, star, weight, at).text,
  );
  // A phrase as its words: GIN would answer `<->` by rechecking each candidate against the
  // indexed expression, rebuilding operator_facets for every one (a common phrase ran past the
  // 10-second deadline); its positions are checked on the row instead (Plan.recheck).
  return lexemes.replace(/('(?:[^']|'')*')|<->/g, (_, quoted: string | undefined) => quoted ?? "&");
}

/**
 * Whether the operators' index answers `query` exactly: each `title:` word in it is a ` ttl `
 * lexeme there (` ttl the` is in a post's index entries exactly when `the` is in its title: both
 * are the lexemes of weight A of `search_vector`, operator_facets in postgres-search-operators.ts),
 * none a prefix or in a phrase, whose weight the index loses.
 */
export function indexSettles(query: string): boolean {
  let exact = true;
  query.replace(TSQUERY_LEXEME, (whole, quoted, star, weight, at) => {
    exact &&= indexLexeme(query, whole, quoted, star, weight, at).exact;
    return whole;
  });
  return exact;
}

/** SQL with `?` placeholders (numbered by `Where`) and their values. */
export interface Part {
  sql: string;
  args: unknown[];
}

export function and(parts: Part[]): Part {
  if (parts.length === 0) return { sql: "TRUE", args: [] };
  return { sql: parts.map((w) => `(${w.sql})`).join(" AND "), args: parts.flatMap((w) => w.args) };
}

function or(parts: Part[]): Part {
  return { sql: parts.map((w) => `(${w.sql})`).join(" OR "), args: parts.flatMap((w) => w.args) };
}

function ids(values: readonly number[] | undefined, what: string): readonly number[] {
  if (values === undefined) throw new Error(`${what} filter reached the store unresolved`);
  return values;
}

/**
 * A filter checked on the row. `+ 0` keeps each a check on the rows a plan reads, never an
 * index condition the planner could pick over GIN's: it would then rebuild the indexed
 * expression (operator_facets unnests every word of the post) for every post of the range, a
 * cost its estimates do not see. The scope says which indexes narrow the search.
 */
function filterPart(filter: PostFilter): Part {
  switch (filter.kind) {
    case "feed":
      return { sql: "p.feed_id + 0 = ANY(?::int[])", args: [ids(filter.feedIds, "feed")] };
    case "lang":
      return { sql: "p.language_id + 0 = ANY(?::int[])", args: [ids(filter.languageIds, "lang")] };
    case "date": {
      const parts: Part[] = [];
      if (filter.from !== null) parts.push({ sql: "p.post_date + 0 >= ?::bigint", args: [filter.from] });
      if (filter.until !== null) parts.push({ sql: "p.post_date + 0 < ?::bigint", args: [filter.until] });
      return and(parts);
    }
  }
}

function atomPart(atom: SearchAtom): Part {
  if (isFilter(atom)) return filterPart(atom);
  return { sql: "p.search_vector @@ ?::tsquery", args: [toTsquery({ clauses: [[atom]], excluded: [] })] };
}

export interface Plan {
  /** The tsquery of the words (what is scored), or null when the query has none to match. */
  words: string | null;
  /**
   * What the operators' index matches of the words (null when nothing): the words without
   * `title:`'s weight, and without excluded `title:` terms; excluded feeds when few. A superset of
   * `words` that GIN answers without reading a post (weights would make it recheck each post's
   * vector, out of TOAST).
   */
  index: string | null;
  /**
   * The indexed expression `index` is for: the operators' (OPERATOR_EXPRESSION), or the word
   * plans' (SEARCH_EXPRESSION, with the pairs of neighbouring words) for phrases without `word*`,
   * which its pairs find without reading a post (postgres-phrase-pairs.ts).
   */
  expression: string;
  /**
   * The operators' index query of the words before excluded feeds, from which a feed's query of
   * the index of posts by feed and word is made (postgres-feed-words.ts); null when `expression`
   * is the word plans'.
   */
  feedIndex: string | null;
  /**
   * One query per feed of the scope (its order) of the index of posts by feed and word, when the
   * statistics chose it to drive (the search sets it, usesFeedWords); null: the operators' index.
   */
  feedWords: readonly string[] | null;
  /**
   * With `feedWords`, in their place: one query per feed of the index of posts by feed and title
   * word (postgres-feed-titles.ts) for the `title:` words, and whether the words are checked on
   * `search_vector` too (some word no title word implies), and whether every day of the lists is
   * read, without the feeds' posts of the window as a bitmap (withFeedTitles); absent or null:
   * the feeds' words.
   */
  feedTitles?: { queries: readonly string[]; checkWords: boolean; allDays: boolean } | null;
  /** Each clause of the words as the operators' index holds it: what the statistics estimate. */
  clauses: string[];
  /**
   * The `title:` words checked on the post: `title:` clauses on `rank_vector` (the title and
   * feed name lexemes of `search_vector`, with their weights and positions: a few bytes), a clause
   * mixing `title:` and other terms on `search_vector` itself.
   */
  verify: Part;
  /**
   * The checks on the row that the index query leaves: the part of `verify` it does not settle
   * (see indexSettles), and the order of phrases it holds as their words.
   */
  recheck: Part;
  /** Every filter, checked on the row (exact whatever the scope narrowed). */
  filters: Part;
  scope: Scope;
  /**
   * Whether `verify` alone decides the words: every clause and every excluded term is `title:`,
   * so each is checked on `rank_vector`, which holds the title words with their weights and
   * positions (`ts_filter(search_vector, '{a,b}')`, postgres-light-writes.ts): a post's
   * `search_vector`, read out of TOAST, would answer the same. A clause that a `title:` clause
   * implies counts as `title:` (see impliedByTitle).
   */
  settled: boolean;
  /**
   * Whether the statistics' estimate can be trusted: one clause of words and no phrase, nothing
   * excluded, no filter but the days. Words are not independent of each other, nor of feeds and languages
   * (`lang:de the`), so the share of any other query is measured on the newest posts first.
   */
  estimable: boolean;
  /**
   * What every clicked post's lexemes (migration 67, postgres-clicked-lexemes.ts) answer of the
   * words: `index`, the clauses as the operators' index holds them, without the excluded words;
   * `excluded`, the excluded words not of the title as one query of any of them (the clicked
   * matches holding one are left out by id: a positive lookup, exact while GIN's pending list
   * moves, where `!word` is not: postgres-excluded-words.ts); `recheck`, the checks of `recheck`
   * but those words'. Absent when the lexemes do not settle the words: a phrase or an excluded
   * phrase (positions), or the word plans' index.
   */
  clicked?: { index: string; excluded: string | null; recheck: Part } | null;
}

export function planOf(query: SearchQuery, languageIds: readonly number[] | null): Plan {
  const words = toTsquery({ clauses: query.clauses, excluded: query.excluded });
  const parts: Part[] = [];
  if (words === null && query.excluded.length > 0) {
    const anyExcluded = toTsquery({ clauses: [query.excluded as SearchTerm[]], excluded: [] });
    parts.push({ sql: "NOT (p.search_vector @@ ?::tsquery)", args: [anyExcluded] });
  }
  for (const clause of query.filterClauses ?? []) parts.push(or(clause.map(atomPart)));
  for (const filter of query.excludedFilters ?? []) {
    const w = filterPart(filter);
    parts.push({ sql: `NOT (${w.sql})`, args: w.args });
  }
  if (languageIds !== null) parts.push({ sql: "p.language_id + 0 = ANY(?::int[])", args: [languageIds] });
  const indexed = indexedWords(query);
  const feedIndex = indexed.expression === OPERATOR_EXPRESSION ? indexed.index : null;
  // Excluded feeds, when few, are left out inside the index too (the row check stays).
  for (const filter of query.excludedFilters ?? []) {
    if (indexed.index === null || indexed.expression !== OPERATOR_EXPRESSION || filter.kind !== "feed")
      continue;
    const feedIds = ids(filter.feedIds, "feed");
    if (feedIds.length === 0 || !feedsInIndex(feedIds)) continue;
    indexed.index = `${indexed.index} & !${feedsFacet(feedIds)}`;
  }
  const scope = scopeOf(query, languageIds);
  const onlyDays = (query.filterClauses ?? []).every(
    (c) => c.length === 1 && isFilter(c[0]!) && c[0].kind === "date",
  );
  // The statistics know nothing of phrases (https://www.postgresql.org/docs/current/planner-stats.html).
  const estimable =
    query.clauses.length <= 1 &&
    !query.clauses.some((c) => c.some((t) => termPhrase(t).length > 1)) &&
    query.excluded.length === 0 &&
    (query.excludedFilters?.length ?? 0) === 0 &&
    onlyDays &&
    scope.languageIds === null;
  const titled = (t: SearchTerm) => t.titleOnly === true;
  const settled =
    query.clauses.every((c) => c.every(titled) || impliedByTitle(c, query.clauses)) &&
    query.excluded.every(titled);
  return { words, ...indexed, feedIndex, feedWords: null, filters: and(parts), scope, settled, estimable };
}

/**
 * Whether a clause of words holds whenever a `title:` clause of one word does: `title:w` is
 * `'w':A`, a lexeme of `search_vector` itself (the title's weight), so it implies `w` and `w*`;
 * `title:w*` implies `w*` only. Single words only (a word that is a phrase of lexemes is left to
 * the vector). `title:the the` then needs no post's vector (out of TOAST) in the clicks walk.
 */
function impliedByTitle(clause: readonly SearchTerm[], clauses: readonly (readonly SearchTerm[])[]): boolean {
  const single = (t: SearchTerm) => t.words.length === 1 && termPhrase(t).length === 1;
  return clause.some(
    (t) =>
      t.titleOnly !== true &&
      single(t) &&
      clauses.some(
        (d) =>
          d.length === 1 &&
          d[0]!.titleOnly === true &&
          single(d[0]!) &&
          d[0]!.words[0] === t.words[0] &&
          (t.prefix === true || d[0]!.prefix !== true),
      ),
  );
}

function indexedWords(query: SearchQuery): {
  index: string | null;
  expression: string;
  clauses: string[];
  verify: Part;
  recheck: Part;
  clicked?: Plan["clicked"];
} {
  const clauses = query.clauses.flatMap((c) => {
    const one = toTsquery({ clauses: [c], excluded: [] });
    return one === null ? [] : [indexLexemes(one)];
  });
  const verify: Part[] = [];
  const recheck: Part[] = [];
  for (const clause of query.clauses) {
    const vector = clause.every((t) => t.titleOnly === true) ? "p.rank_vector" : "p.search_vector";
    const one = toTsquery({ clauses: [clause], excluded: [] });
    const check = { sql: `${vector} @@ ?::tsquery`, args: [one] };
    if (clause.some((t) => t.titleOnly === true)) verify.push(check);
    if (one !== null && !indexSettles(one)) recheck.push(check);
  }
  const titled = query.excluded.filter((t) => t.titleOnly === true);
  if (titled.length > 0) {
    // Not in the index query (only excluded words and feeds are): checked on the row.
    const check = {
      sql: "NOT (p.rank_vector @@ ?::tsquery)",
      args: [toTsquery({ clauses: [titled], excluded: [] })],
    };
    verify.push(check);
    recheck.push(check);
  }
  const terms = [...query.clauses.flat(), ...query.excluded];
  if (terms.some((t) => termPhrase(t).length > 1) && !terms.some((t) => t.prefix === true)) {
    // Phrases without `word*`: the word plans' index finds them by their pairs (its lexemes hold
    // no weights: `title:` words are checked on the title's vector, as `verify` does).
    const untitled = query.excluded.filter((t) => t.titleOnly !== true);
    const pairs = toSearchIndexTsquery({ clauses: query.clauses, excluded: untitled });
    const words = toTsquery({ clauses: query.clauses, excluded: query.excluded });
    // Excluded words in GIN's query are a superset while its pending list moves (see searchMatch).
    const exact = (pairs === null || pairs.exact) && untitled.length === 0;
    return {
      index: pairs?.tsquery ?? null,
      expression: SEARCH_EXPRESSION,
      clauses,
      verify: and(verify),
      recheck: and(exact ? verify : [...verify, { sql: "p.search_vector @@ ?::tsquery", args: [words] }]),
    };
  }
  // An excluded phrase as its words would leave out posts that hold them apart, and GIN's NOT of
  // an excluded word holds only while its pending list stays put (see postgres-search-queries.ts
  // searchMatch): every excluded term not of the title is checked on the row.
  const untitled = query.excluded.filter((t) => t.titleOnly !== true);
  const positive = toTsquery({ clauses: query.clauses, excluded: [] });
  const anyExcluded = toTsquery({ clauses: [untitled], excluded: [] });
  const clicked =
    positive === null ||
    terms.some((t) => termPhrase(t).length > 1) ||
    (untitled.length > 0 && anyExcluded === null)
      ? null
      : {
          index: withoutImplied(indexLexemes(positive)),
          excluded: anyExcluded === null ? null : indexLexemes(anyExcluded),
          recheck: and([...recheck]),
        };
  if (untitled.length > 0) {
    recheck.push({
      sql: "NOT (p.search_vector @@ ?::tsquery)",
      args: [toTsquery({ clauses: [untitled], excluded: [] })],
    });
  }
  const excluded = query.excluded.filter((t) => t.titleOnly !== true && termPhrase(t).length <= 1);
  const index = toTsquery({ clauses: query.clauses, excluded });
  return {
    // Conjuncts others imply left out: the same posts, fewer posting lists for GIN to intersect.
    index: index === null ? null : withoutImplied(indexLexemes(index)),
    expression: OPERATOR_EXPRESSION,
    clauses,
    verify: and(verify),
    recheck: and(recheck),
    clicked,
  };
}

/**
 * The words' GIN condition and the checks GIN leaves (Plan.recheck) on `where`, the index query
 * narrowed by `facet`.
 */
export function addWords(where: Where, plan: Plan & { index: string }, facet: string | null): Where {
  where.add(`${plan.expression} @@ ?::tsquery`, facet === null ? plan.index : `(${plan.index}) & ${facet}`);
  return where.add(plan.recheck.sql, ...plan.recheck.args);
}

/** Whether every lexeme of an index query is a title word's (` ttl `, indexLexeme). */
function titleLexemesOnly(index: string): boolean {
  const lexemes = [...index.matchAll(/'((?:[^']|'')+)'/g)];
  return lexemes.length > 0 && lexemes.every((m) => m[1]!.startsWith(" ttl "));
}

/** The planner's estimate of the rows `condition` keeps, from the statistics (cheap: no row read). */
async function estimatedRows(sql: Sql, condition: string, params: unknown[]): Promise<number> {
  const [explained] = (
    await sql.query(`EXPLAIN (FORMAT JSON) SELECT 1 FROM posts p WHERE ${condition}`, params)
  ).rows as Array<{ "QUERY PLAN": Array<{ Plan: { "Plan Rows": number } }> }>;
  return Math.max(1, explained!["QUERY PLAN"][0]!.Plan["Plan Rows"]);
}

/**
 * What the statistics expect of a plan, as shares of all posts:
 * - `words`: the share of the rarest clause of the words (1 without words), as the operators'
 *   index expression's own statistics count its lexemes, ` ttl the` and ` pfx pro` included (the
 *   words' statistics know neither). Not their product: common words go together (`the new`), and
 *   the product fell short (bench/NOTES.md);
 * - `feeds`: the share of the scope's feeds' posts (their post counts; 1 for every feed), taken as
 *   independent of the words and of the languages and days;
 * - `base`: the share of the scope's languages and days (the planner's, from the columns' statistics);
 * - `days`: the share of the scope's days alone;
 * and the days with posts.
 * A guess: words and filters are not independent either (`lang:de the`), so every plan that
 * sizes a tier on it measures the share the tier found and sizes the next one on that.
 */
export interface Expected {
  /** The share of the posts of the scope's languages and days expected to match the rest. */
  inBase: number;
  words: number;
  /**
   * The share of the rarest clause that is all `title:` words as the index holds them (` ttl `
   * lexemes; 1 when none): what a check of `verify` on a post's title vector keeps, at most.
   */
  titles: number;
  feeds: number;
  base: number;
  days: number;
  posts: number;
  /** The newest and oldest days with posts now (of all languages). */
  bounds: { newest: number; oldest: number };
}

export async function expected(sql: Sql, plan: Plan): Promise<Expected> {
  const [total] = await rows<{
    n: number;
    feeds: number | null;
    newest: number | null;
    oldest: number | null;
  }>(
    sql,
    `SELECT greatest(reltuples, 1)::float8 AS n,
      (SELECT sum(post_count)::float8 FROM feeds WHERE id = ANY($1::int[])) AS feeds,
      (SELECT max(day) FROM scope_days WHERE posts > 0) AS newest,
      (SELECT min(day) FROM scope_days WHERE posts > 0) AS oldest
      FROM pg_class WHERE oid = 'posts'::regclass`,
    [plan.scope.feedIds ?? []],
  );
  const posts = total!.n;
  let words = 1;
  let titles = 1;
  for (const clause of plan.clauses) {
    const share = (await estimatedRows(sql, `${OPERATOR_EXPRESSION} @@ $1::tsquery`, [clause])) / posts;
    words = Math.min(words, share);
    if (titleLexemesOnly(clause)) titles = Math.min(titles, share);
  }
  const { scope } = plan;
  const base: string[] = [];
  const params: unknown[] = [];
  if (scope.languageIds !== null) base.push(`p.language_id = ANY($${params.push(scope.languageIds)}::int[])`);
  if (scope.fromDay !== null) base.push(`p.post_date >= $${params.push(scope.fromDay * DAY_MS)}::bigint`);
  if (scope.lastDay !== null)
    base.push(`p.post_date < $${params.push((scope.lastDay + 1) * DAY_MS)}::bigint`);
  const baseShare = base.length === 0 ? 1 : (await estimatedRows(sql, base.join(" AND "), params)) / posts;
  const dated = base.filter((b) => b.startsWith("p.post_date"));
  const daysShare =
    dated.length === 0
      ? 1
      : dated.length === base.length
        ? baseShare
        : (await estimatedRows(
            sql,
            dated.join(" AND ").replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) - 1}`),
            params.slice(1),
          )) / posts;
  const feeds = scope.feedIds === null ? 1 : Math.min(1, (total!.feeds ?? 0) / posts);
  return {
    // The words' (their rarest clause) among the feeds' (taken as independent of the words).
    inBase: words * feeds,
    words,
    titles,
    feeds,
    base: Math.min(1, baseShare),
    days: Math.min(1, daysShare),
    posts,
    bounds: { newest: total!.newest ?? 0, oldest: total!.oldest ?? 0 },
  };
}

/**
 * The feeds' queries of the indexes by feed and word or title word, one per feed, as the planner
 * must not read them: an array it sees (a constant) is estimated element by element, each
 * tsquery against the index expression's statistics (tsmatchsel): for a `feed:` of hundreds of
 * feeds that planning cost more than the feeds' index scans themselves, for an estimate far from
 * the matches (bench/NOTES.md, "PostgreSQL `feed:` of many feeds"). Behind a sub-select
 * the array is a parameter of the statement's run: the planner takes its default share, and the
 * bitmap index scan still runs one scan per element.
 */
export const FEED_QUERIES = "ANY(ARRAY(SELECT unnest(?::tsquery[])))";

/** `column` in `ids` (none: no condition), as `=` when there is one. */
function addKey(where: Where, column: string, ids: readonly number[] | null): void {
  if (ids === null) return;
  if (ids.length === 1) where.add(`${column} = ?::int`, ids[0]);
  else where.add(`${column} = ANY(?::int[])`, ids);
}

/**
 * The conditions of the plan's matches among the posts of `window` on `where`: the words
 * through the operators' index with the scope's facets (its days only when `days.narrow`), the
 * scope's bitmap condition (many feeds), the filters and the checks on the row. Without words, the scope's conditions on the
 * indexed columns (languages, feeds, dates), for the planner to pick an index from.
 */
export function addMatching(
  where: Where,
  plan: Plan,
  window: Window,
  days: { newest: number; oldest: number; narrow: boolean },
): Where {
  const { scope } = plan;
  if (plan.index !== null && plan.feedWords !== null && scope.feedIds !== null) {
    // The feeds' words (postgres-feed-words.ts), ANDed with the feeds' posts of the window's days;
    // the index holds no weights: `title:` words are checked on the title's vector (verify).
    // A post holds only its own feed's keys: the ANY is the post's feed's query.
    if (plan.feedTitles) {
      where.add(`${FEED_TITLES_EXPRESSION} @@ ${FEED_QUERIES}`, plan.feedTitles.queries);
      if (plan.feedTitles.checkWords) where.add("p.search_vector @@ ?::tsquery", plan.words);
    } else {
      where.add(`${FEED_WORDS_EXPRESSION} @@ ${FEED_QUERIES}`, plan.feedWords);
    }
    // Every day: the feeds' matches alone (the filters check the feeds); the feeds' posts of
    // every day as a bitmap would cost more than it saves.
    if ((window.first !== null || window.last !== null) && plan.feedTitles?.allDays !== true) {
      const bitmap = scopeBitmap(scope, window, true, false)!;
      where.add(bitmap.sql, ...bitmap.args);
    }
    where.add(plan.recheck.sql, ...plan.recheck.args);
    where.add(plan.verify.sql, ...plan.verify.args);
  } else if (plan.index !== null) {
    // The word plans' index holds no feeds: posts_by_feed narrows to them.
    const feedFacets = plan.expression === OPERATOR_EXPRESSION;
    addWords(where, { ...plan, index: plan.index }, scopeFacet(scope, window, days, feedFacets));
    const bitmap = scopeBitmap(scope, window, days.narrow, feedFacets);
    if (bitmap !== null) where.add(bitmap.sql, ...bitmap.args);
  } else {
    // One language or feed as `=`: PostgreSQL's planner takes no order from a B-tree scan of
    // `= ANY(array)`, so the newest posts of one feed (posts_by_feed: feed, date, id) were read
    // whole and sorted instead of read newest first up to the page (bench/NOTES.md).
    addKey(where, "p.language_id", scope.languageIds);
    addKey(where, "p.feed_id", scope.feedIds);
    if (window.first !== null) where.add("p.post_date >= ?::bigint", window.first * DAY_MS);
    if (window.last !== null) where.add("p.post_date < ?::bigint", (window.last + 1) * DAY_MS);
  }
  return where.add(plan.filters.sql, ...plan.filters.args);
}
