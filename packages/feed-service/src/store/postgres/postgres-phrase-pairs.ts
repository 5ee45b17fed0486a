/**
 * Pairs of neighbouring words in the search index (migration 11): the GIN index of
 * postgres-search-facets.ts also holds each post's pairs of neighbouring tokens (`open source`,
 * `東京 京`), read from the positions of `search_vector` itself. GIN keeps no positions, so without
 * them a phrase of two common words has every post holding both words re-read and checked against
 * the phrase, its whole vector read from TOAST
 * (https://www.postgresql.org/docs/current/textsearch-indexes.html). With the pairs ANDed into the
 * index query, GIN hands over only posts holding them, narrowed by the same facets (newest days,
 * languages) in one lookup.
 *
 * Runs of Chinese, Japanese and Korean are indexed as characters and pairs interleaved
 * (`データ`: `デ デー ー ータ タ`), so a word of three characters is the phrase `デー ー ータ`, and
 * its two pairs say nothing its two-character tokens do not (`デー` is always followed by `ー`):
 * every post holding `デー` and `ータ` would be checked. For them the index also holds triples:
 * three neighbouring tokens shaped like such a run (two characters, the second of them, a pair
 * starting with it), `デー ー ータ`, which is the phrase exactly.
 *
 * A pair lexeme holds one space between two tokens, a triple two (tokens never hold one, and the
 * facet lexemes start with one), so neither can equal a word, a facet or the other. Every post
 * matching a phrase holds its pairs and triples, since the phrase operator asks for tokens at
 * neighbouring positions, which is how they are made: a two-token phrase is its pair exactly, a
 * three-token one shaped like a run its triple, and a longer one is checked on `search_vector`
 * afterwards. A pair whose lexeme would pass PostgreSQL's length limit is left out of both the
 * index and the queries.
 *
 * The cost is on writes: a larger index. Until migration 14 the pairs were computed by SQL in
 * the index expression at every write of the row, clicks included; since then the writer stores
 * them (`phrase_vector`, postgres-light-writes.ts). Figures in bench/NOTES.md.
 */
import type { SearchQuery, SearchTerm } from "../../search/search-query.js";
import { candidateTokens, termPhrase } from "../../search/term-phrase.js";
import type { MigrationProgress } from "../migration-progress.js";
import { rows, type Sql } from "./postgres-connection.js";
import { anyOf, MAX_PAIR_BYTES, quoteLexeme } from "./postgres-text-search.js";

/**
 * One index instead of a second one beside posts_search_facets: with two, the planner (which
 * takes several pairs of one word for independent) would read one and check the other's
 * expression on every post it hands over, rebuilding each vector.
 */
export const phrasePairsSchema = `
CREATE FUNCTION phrase_pairs(vector tsvector) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (SELECT coalesce(array_to_tsvector(array_agg(lexeme)), ''::tsvector) FROM (
    SELECT a.lexeme || ' ' || b.lexeme AS lexeme
      FROM (SELECT lexeme, unnest(positions) AS at FROM unnest(vector)) a
      JOIN (SELECT lexeme, unnest(positions) AS at FROM unnest(vector)) b ON b.at = a.at + 1
      WHERE octet_length(a.lexeme) + octet_length(b.lexeme) < ${MAX_PAIR_BYTES}
    UNION ALL
    SELECT a.lexeme || ' ' || b.lexeme || ' ' || c.lexeme
      FROM (SELECT lexeme, unnest(positions) AS at FROM unnest(vector) WHERE char_length(lexeme) = 2) a
      JOIN (SELECT lexeme, unnest(positions) AS at FROM unnest(vector) WHERE char_length(lexeme) = 1) b
        ON b.at = a.at + 1 AND b.lexeme = right(a.lexeme, 1)
      JOIN (SELECT lexeme, unnest(positions) AS at FROM unnest(vector) WHERE char_length(lexeme) = 2) c
        ON c.at = a.at + 2 AND left(c.lexeme, 1) = b.lexeme
  ) found);
SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX posts_search_phrases ON posts USING GIN
  ((search_vector || post_facets(post_date, language_id, clicks) || phrase_pairs(search_vector)));
DROP INDEX IF EXISTS posts_search_facets;
ANALYZE posts;
`;

export async function createPhrasePairs(sql: Sql, progress: MigrationProgress): Promise<void> {
  const [count] = await rows<{ n: number }>(sql, "SELECT count(*) AS n FROM posts");
  const step = "indexing the pairs of neighbouring words for phrase search (schema 11)";
  progress(step, 0, count!.n);
  await sql.query(phrasePairsSchema);
  progress(step, count!.n, count!.n);
}

/** Whether three tokens are shaped like a run's (`デー ー ータ`): what the index holds triples of. */
function isRunTriple(a: string, b: string, c: string): boolean {
  const [first, second] = [[...a], [...c]];
  return (
    first.length === 2 && second.length === 2 && [...b].length === 1 && first[1] === b && second[0] === b
  );
}

/**
 * The AND of a phrase's run triples and the pairs none of them holds (`exact` when it is one
 * pair, or one triple of three tokens; `covering` when every token is in one of them); null when
 * it has none to look up. A triple is made of three neighbouring tokens, which make its two pairs
 * too: looked up beside it they would only add posting lists for GIN to read.
 */
function termPairs(term: SearchTerm): { tsquery: string; exact: boolean; covering: boolean } | null {
  const tokens = termPhrase(term);
  const lexemes: string[] = [];
  // pairInTriple[i]: the pair of tokens i - 1 and i is held by a triple.
  const pairInTriple: boolean[] = [];
  let triples = 0;
  for (let i = 2; i < tokens.length; i++) {
    if (!isRunTriple(tokens[i - 2]!, tokens[i - 1]!, tokens[i]!)) continue;
    lexemes.push(quoteLexeme(`${tokens[i - 2]} ${tokens[i - 1]} ${tokens[i]}`));
    pairInTriple[i - 1] = pairInTriple[i] = true;
    triples++;
  }
  let covering = true;
  for (let i = 1; i < tokens.length; i++) {
    const pair = `${tokens[i - 1]} ${tokens[i]}`;
    if (Buffer.byteLength(pair) > MAX_PAIR_BYTES) covering = false;
    else if (!pairInTriple[i]) lexemes.push(quoteLexeme(pair));
  }
  if (lexemes.length === 0) return null;
  // Two tokens at neighbouring positions are what the phrase asks and what the pair records;
  // three, what the triple records.
  const exact = (tokens.length === 2 && covering) || (tokens.length === 3 && triples === 1);
  return { tsquery: lexemes.length === 1 ? lexemes[0]! : `(${lexemes.join(" & ")})`, exact, covering };
}

/**
 * How the search index finds one term's posts: a word as itself; a phrase by its pairs and
 * triples when they hold each of its tokens (a pair is made of two tokens a post holds, so its
 * words would add nothing GIN must not then read: `データ`'s `デー` and `ータ` are in most
 * Japanese posts, so looking them up beside the triple only adds posting lists to read); else by
 * its words, and the pairs it has.
 */
function termIndex(term: SearchTerm): { tsquery: string; exact: boolean } {
  const tokens = termPhrase(term);
  if (tokens.length === 1) return { tsquery: quoteLexeme(tokens[0]!), exact: true };
  const pairs = termPairs(term);
  if (pairs?.covering) return pairs;
  const words = candidateTokens(term).map(quoteLexeme);
  if (pairs) words.push(pairs.tsquery);
  return { tsquery: words.length === 1 ? words[0]! : `(${words.join(" & ")})`, exact: false };
}

/**
 * The query as the search index (words, pairs and triples) can answer it without positions, or
 * null when it matches nothing: each clause the OR of its terms' lookups (see termIndex), the
 * excluded words left out with NOT, excluded phrases left out. `exact` when that is the query
 * itself: every phrase is two tokens or a run's three, and none is excluded; otherwise a
 * superset, whose matches must still be checked against `toTsquery` on `search_vector` (GIN
 * rechecks against the indexed expression, which rebuilds each candidate's whole vector).
 *
 * @example
 * toSearchIndexTsquery(parseSearchQuery('"open source" rust -go')); // { tsquery: "'open source' & 'rust' & !'go'", exact: true }
 */
export function toSearchIndexTsquery(query: SearchQuery): { tsquery: string; exact: boolean } | null {
  const clauses = query.clauses.filter((c) => c.length > 0);
  if (clauses.length === 0) return null;
  const isPhrase = (t: SearchTerm) => termPhrase(t).length > 1;
  let exact = !query.excluded.some(isPhrase);
  const positive = clauses
    .map((clause) => {
      const terms = clause.map(termIndex);
      if (terms.some((t) => !t.exact)) exact = false;
      return terms.length === 1 ? terms[0]!.tsquery : `(${terms.map((t) => t.tsquery).join(" | ")})`;
    })
    .join(" & ");
  const excluded = query.excluded.filter((t) => !isPhrase(t));
  if (excluded.length === 0) return { tsquery: positive, exact };
  return { tsquery: `${positive} & !${anyOf(excluded)}`, exact };
}
