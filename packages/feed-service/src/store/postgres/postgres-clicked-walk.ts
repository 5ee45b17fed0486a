/**
 * A search's matches most clicked first (ties by id descending, spec §4), found by walking the
 * clicks order and testing each post against the query, in batches sized from the share of
 * matches seen so far (as SQLite's sqlite-clicked-hits.ts does). The walk reads clicked_posts by
 * (clicks, id) (no index of posts holds clicks: postgres-light-writes.ts), or by (language, clicks,
 * id) within few enough languages (postgres-clicked-order.ts), then the posts with no
 * click from the newest id down. For a common word most posts match, so a page costs about its
 * own size in posts tested whatever the number of matches; for a rarer one the walk stops once it
 * has tested what reading every match would cost (`budget`), and the caller reads them all.
 */
import { clickedAfter, languagesShare, walkByLanguage } from "./postgres-clicked-order.js";
import { rows, type Sql } from "./postgres-connection.js";
import type { Match } from "./postgres-search-plan.js";

/** The first and least batch: a batch is one statement, so below this its fixed cost dominates. */
const FIRST_BATCH = 256;
/** The most posts one batch tests: the last batch tests at most this many more than the page needs. */
const MAX_BATCH = 4_096;

interface Walked {
  id: number;
  clicks: number;
  hit: boolean;
}

/**
 * Posts in clicks order after (`clicks`, `id`), up to `limit` of them, each with whether it
 * matches. The test is the walks' own (postgres-search-plan.ts `walk`): the query on
 * `search_vector`, the languages on `language_id`, never the index expression, which would build
 * each post's vector again with its facets.
 */
async function nextBatch(
  sql: Sql,
  match: Match,
  after: { clicks: number; id: number },
  limit: number,
  byLanguage: boolean,
): Promise<Walked[]> {
  const language = match.languageIds ? "AND p.language_id = ANY($5::int[])" : "";
  const params = [
    match.words,
    after.clicks,
    after.id,
    limit,
    ...(match.languageIds ? [match.languageIds] : []),
  ];
  if (after.clicks > 0) {
    // Within languages, their clicked posts alone (postgres-clicked-order.ts).
    const clicked = clickedAfter(
      { clicks: "$2", id: "$3" },
      "$4",
      byLanguage ? { column: "language_id", ids: "$5" } : null,
    );
    return rows<Walked>(
      sql,
      `WITH w AS MATERIALIZED (${clicked})
        SELECT w.id, w.clicks, (p.search_vector @@ $1::tsquery ${language}) AS hit
        FROM w JOIN posts p ON p.id = w.id ORDER BY w.clicks DESC, w.id DESC`,
      params,
    );
  }
  // Past the clicked posts: the rest by id, newest first ($2 is 0 here).
  return rows<Walked>(
    sql,
    `SELECT p.id, p.clicks, (p.search_vector @@ $1::tsquery ${language}) AS hit FROM posts p
      WHERE p.clicks = $2 AND p.id < $3 ORDER BY p.id DESC LIMIT $4`,
    params,
  );
}

/**
 * The ids of the first `need` matches in clicks order (all of them when fewer match), or null
 * when that takes testing more than `budget` posts, as the share of matches seen so far foretells.
 */
export async function walkClicked(
  sql: Sql,
  match: Match,
  need: number,
  budget: number,
): Promise<number[] | null> {
  const found: number[] = [];
  let after = { clicks: 2 ** 31 - 1, id: 0 };
  let tested = 0;
  let batch = FIRST_BATCH;
  const languages = match.languageIds;
  const byLanguage =
    languages !== null &&
    (languages.length === 1 || walkByLanguage(languages, await languagesShare(sql, languages)));
  while (found.length < need) {
    const walked = await nextBatch(sql, match, after, batch, byLanguage);
    for (const post of walked) if (post.hit && found.length < need) found.push(post.id);
    tested += walked.length;
    if (walked.length < batch) {
      // The clicked posts are done: the unclicked ones follow from the newest id down; past those, every post was tested.
      if (after.clicks === 0) return found;
      after = { clicks: 0, id: 2 ** 31 - 1 };
    } else {
      const last = walked[walked.length - 1]!;
      after = { clicks: last.clicks, id: last.id };
    }
    // The rest of the page at the share seen so far (a tenth more, so that the last batch does
    // not fall just short), unless that goes past the budget.
    const share = Math.max(found.length, 1) / Math.max(tested, 1);
    const rest = Math.ceil(((need - found.length) / share) * 1.1);
    if (found.length < need && tested + rest > budget && tested >= FIRST_BATCH) return null;
    batch = Math.max(FIRST_BATCH, Math.min(MAX_BATCH, rest));
  }
  return found;
}
