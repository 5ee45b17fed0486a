/**
 * The query that finds the same posts as a search with fewer posting lists: a positive term that
 * another positive term implies is left out (`title:the the` finds what `title:the` finds, and
 * `the* the` what `the` finds: a title holding `the` is a post holding it, and the word `the`
 * begins with `the`). FTS5 reads every phrase's posting list to intersect them (and a `title:`
 * phrase's positions, to check the column), so each phrase left out is a list not read. The
 * scores are not the same: a term left out still weighs in a post's score (spec §4 ranks on every
 * term), so the stores find with this query and score with the whole one.
 */
import type { SearchQuery, SearchTerm } from "../../search/search-query.js";
import { termPhrase } from "../../search/term-phrase.js";

/**
 * Whether every post that `b` matches is matched by `a`, as FTS5 reads them (fts5-match.ts):
 * `a`'s phrase lies inside `b`'s at consecutive positions, each token the same, but for `a`'s last
 * token when it is a prefix (`a*`), which `b`'s token there need only begin with; `b`'s last
 * token, when a prefix itself, stands for any word that begins with it, so `a` may end there only
 * as a prefix of it. `title:` limits a phrase to the title: `a` may have it only if `b` has.
 */
export function implies(b: SearchTerm, a: SearchTerm): boolean {
  if (a.titleOnly === true && b.titleOnly !== true) return false;
  const pa = termPhrase(a);
  const pb = termPhrase(b);
  if (pa.length === 0 || pa.length > pb.length) return false;
  const last = pa.length - 1;
  for (let at = 0; at + pa.length <= pb.length; at++) {
    const lastOfB = at + last === pb.length - 1;
    const fits = pa.every((token, k) => {
      const theirs = pb[at + k]!;
      if (k < last) return theirs === token;
      if (lastOfB && b.prefix === true) return a.prefix === true && theirs.startsWith(token);
      return a.prefix === true ? theirs.startsWith(token) : theirs === token;
    });
    if (fits) return true;
  }
  return false;
}

/**
 * `query` less each positive clause of one term that another such clause (one not left out
 * itself) implies; the query itself when none is. Equivalent terms keep their last.
 *
 * @example
 * findingQuery(parseSearchQuery("the* title:the the")).clauses; // [[{ words: ["the"], titleOnly: true }]]
 */
export function findingQuery(query: SearchQuery): SearchQuery {
  const single = query.clauses.map((clause) => (clause.length === 1 ? clause[0]! : null));
  const dropped = new Set<number>();
  single.forEach((a, j) => {
    if (a === null) return;
    const impliedBy = single.some((b, i) => i !== j && b !== null && !dropped.has(i) && implies(b, a));
    if (impliedBy) dropped.add(j);
  });
  if (dropped.size === 0) return query;
  return { ...query, clauses: query.clauses.filter((_, i) => !dropped.has(i)) };
}
