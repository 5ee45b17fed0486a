/**
 * The search index with facets (migration 7): the GIN index covers each post's words plus three
 * lexemes that no search word can equal (they start with a space, and search words never hold
 * one): its UTC day (` day 20468`), its language (` lang 3`) and its click tier (` clk 4`: clicks
 * 8–15; tier 0 is no click, tier n is 2^(n-1) to 2^n - 1 clicks).
 *
 * ANDing the query with an OR of facet lexemes lets GIN itself narrow a search to the newest
 * days, some languages or the most clicked posts: GIN intersects posting lists by skipping, so a
 * common word costs what its matches inside those facets cost, not what all its matches cost.
 * That is how date and relevance search stop after the newest matches, and a language filter
 * never reads posts of other languages.
 */
import type { Sql } from "./postgres-connection.js";

/** The indexed expression; queries must spell it the same way to use the index. */
export const SEARCH_EXPRESSION = "(p.search_vector || post_facets(p.post_date, p.language_id, p.clicks))";

export const searchFacetSchema = `
CREATE FUNCTION click_tier(clicks integer) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN clicks <= 0 THEN 0 ELSE 1 + floor(log(2, clicks))::integer END;
CREATE FUNCTION post_facets(post_date bigint, language_id integer, clicks integer) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN array_to_tsvector(ARRAY[' day ' || post_day(post_date), ' lang ' || language_id, ' clk ' || click_tier(clicks)]);
SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX posts_search_facets ON posts USING GIN ((search_vector || post_facets(post_date, language_id, clicks)));
DROP INDEX posts_search;
ANALYZE posts;
`;

export async function createSearchFacets(sql: Sql): Promise<void> {
  await sql.query(searchFacetSchema);
}

/** The highest click tier a 32-bit count can reach. */
const MAX_CLICK_TIER = 32;

function anyLexeme(lexemes: readonly string[]): string {
  return `(${lexemes.map((l) => `'${l}'`).join(" | ")})`;
}

/** The OR of day lexemes (days are whole numbers). */
export function daysFacet(days: readonly number[]): string {
  return anyLexeme(days.map((d) => ` day ${d}`));
}

/** The OR of language lexemes (ids are whole numbers). */
export function languagesFacet(languageIds: readonly number[]): string {
  return anyLexeme(languageIds.map((id) => ` lang ${id}`));
}

/** The OR of the click tiers from `lowest` up. */
export function clickTiersFacet(lowest: number): string {
  const tiers: string[] = [];
  for (let t = lowest; t <= MAX_CLICK_TIER; t++) tiers.push(` clk ${t}`);
  return anyLexeme(tiers);
}
