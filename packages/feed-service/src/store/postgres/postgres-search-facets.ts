/**
 * The search index with facets (migration 7): the GIN index covers each post's words plus
 * lexemes that no search word can equal (they start with a space, and search words never hold
 * one): its UTC day, 7-day week, 28-day month and 364-day year (` day 20468`, ` wk 2924`,
 * ` mo 731`, ` yr 56`: each block of one level is whole blocks of the level below), its language
 * (` lang 3`); until migration 14 also its click tier (` clk 4`), which made every click rewrite
 * the post's index entries (postgres-light-writes.ts).
 *
 * ANDing the query with an OR of facet lexemes lets GIN itself narrow a search to the newest
 * days or some languages: GIN intersects posting lists by skipping along
 * the shortest, so a common word costs what its matches inside those facets cost, not what all
 * its matches cost. The time levels keep "every day since D" down to a few lexemes (an OR of
 * many long lists would be read whole). That is how date and relevance search stop after the
 * newest matches, and a language filter never reads posts of other languages.
 */
import type { Sql } from "./postgres-connection.js";

/**
 * The indexed expression: words and facets, and since migration 11 the pairs of neighbouring
 * words (postgres-phrase-pairs.ts), stored since migration 14, which also took the click tier out
 * (postgres-light-writes.ts); queries must spell it the same way to use the index.
 */
export const SEARCH_EXPRESSION =
  "(p.search_vector || post_facets(p.post_date, p.language_id) || p.phrase_vector)";

export const searchFacetSchema = `
CREATE FUNCTION click_tier(clicks integer) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN clicks <= 0 THEN 0 ELSE 1 + floor(log(2, clicks))::integer END;
CREATE FUNCTION post_facets(post_date bigint, language_id integer, clicks integer) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN array_to_tsvector(ARRAY[' day ' || post_day(post_date), ' wk ' || floor(post_day(post_date) / 7.0)::integer,
    ' mo ' || floor(post_day(post_date) / 28.0)::integer, ' yr ' || floor(post_day(post_date) / 364.0)::integer,
    ' lang ' || language_id, ' clk ' || click_tier(clicks)]);
SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX posts_search_facets ON posts USING GIN ((search_vector || post_facets(post_date, language_id, clicks)));
DROP INDEX IF EXISTS posts_search;
ANALYZE posts;
`;

export async function createSearchFacets(sql: Sql): Promise<void> {
  await sql.query(searchFacetSchema);
}

function anyLexeme(lexemes: readonly string[]): string {
  return `(${lexemes.map((l) => `'${l}'`).join(" | ")})`;
}

/** Time blocks, each a whole number of blocks of the level before. */
const TIME_LEVELS = [
  { name: "day", days: 1 },
  { name: "wk", days: 7 },
  { name: "mo", days: 28 },
  { name: "yr", days: 364 },
] as const;

/** One time lexeme: the block of `days` days from day `first`. */
export interface TimeBlock {
  lexeme: string;
  first: number;
  days: number;
}

/**
 * The fewest time blocks that cover every day from `from` to `to` (and at most a block past it):
 * days up to a week's start, weeks up to a month's, months up to a year's, years.
 */
export function sinceDayBlocks(from: number, to: number): TimeBlock[] {
  const blocks: TimeBlock[] = [];
  let day = from;
  TIME_LEVELS.forEach((level, i) => {
    const next = TIME_LEVELS[i + 1]?.days;
    // `day` is a multiple of level.days here; emit blocks until it is one of the next level's.
    while (day <= to && (next === undefined || ((day % next) + next) % next !== 0)) {
      blocks.push({ lexeme: ` ${level.name} ${Math.floor(day / level.days)}`, first: day, days: level.days });
      day += level.days;
    }
  });
  return blocks;
}

/**
 * Time blocks that cover exactly the days from `from` to `to`, none past either end: at each day
 * the largest block that starts there and ends by `to` (at most about 45 blocks for any range).
 */
export function dayRangeBlocks(from: number, to: number): TimeBlock[] {
  const blocks: TimeBlock[] = [];
  let day = from;
  while (day <= to) {
    let level: (typeof TIME_LEVELS)[number] = TIME_LEVELS[0];
    for (const l of TIME_LEVELS) {
      if (((day % l.days) + l.days) % l.days === 0 && day + l.days - 1 <= to) level = l;
    }
    blocks.push({ lexeme: ` ${level.name} ${Math.floor(day / level.days)}`, first: day, days: level.days });
    day += level.days;
  }
  return blocks;
}

/** The OR of the time lexemes of `dayRangeBlocks(from, to)`: the posts of those days, no others. */
export function dayRangeFacet(from: number, to: number): string {
  return anyLexeme(dayRangeBlocks(from, to).map((b) => b.lexeme));
}

/**
 * The OR of the fewest time lexemes that cover every day from `from` to `to` (see sinceDayBlocks).
 *
 * @example
 * sinceDayFacet(20_466, 20_468); // "(' day 20466' | ' day 20467' | ' mo 731')"
 */
export function sinceDayFacet(from: number, to: number): string {
  return anyLexeme(sinceDayBlocks(from, to).map((b) => b.lexeme));
}

/** The OR of language lexemes (ids are whole numbers). */
export function languagesFacet(languageIds: readonly number[]): string {
  return anyLexeme(languageIds.map((id) => ` lang ${id}`));
}
