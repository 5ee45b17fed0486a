/**
 * Posts by feed and word together (migration 32): a GIN index whose keys are a post's feed and
 * each of its words (`12 the`), so that a `feed:` with words reads the posting lists of the
 * matched feeds' words, as many posts as match, where the operators' index
 * (postgres-search-operators.ts) hands over every post of the day tier that holds the word and
 * leaves the feeds to a bitmap (`feed:日 the` at 1M posts: 226,376 candidates for 10,886 matches),
 * and where GIN's AND of a feed facet with a common word decodes the word's posting tree once per
 * feed (bench/NOTES.md, pgfeed34d). Each feed is one scan of the index (`@@ ANY` of one tsquery
 * per feed: a bitmap index scan runs an array's elements one at a time), its matches ANDed with
 * the feeds' range of posts_by_feed since the tier's first day. Which side drives is the
 * statistics' call (usesFeedWords).
 */
import type { Expected, Plan } from "./postgres-operator-plan.js";
import { FEED_WORD_SCAN_POSTS } from "./postgres-plan-costs.js";

/** The index's name (the start warm-up loads it last: postgres-warm.ts). */
export const FEED_WORDS_INDEX = "posts_feed_words";

/** Characters of a word the index keeps (a key stays under the 2,047 bytes of a lexeme). */
export const FEED_WORD_CHARS = 500;

/**
 * Whether the index keeps a quoted lexeme (`''` a quote inside it) whole: a longer one is held by
 * its first FEED_WORD_CHARS characters, which other words may share, so its key cannot answer it.
 */
export function keptWhole(quoted: string): boolean {
  return Array.from(quoted.replace(/''/g, "'")).length < FEED_WORD_CHARS;
}

/**
 * Migration 32. A word longer than FEED_WORD_CHARS is held by its first characters (so that a
 * prefix of it still finds it; array_to_tsvector drops the duplicates). Clicks (heap-only updates
 * of `clicks`) do not touch it. The function's COST tells the planner what computing it on a row
 * costs (the post's vector out of TOAST, each word unnested: about as much as reading 25 pages),
 * which it cannot see in a call it does not inline (a subquery): priced at its default, it
 * checked the feeds' posts of a tier one by one instead of using the index (6.6 s, bench/NOTES.md).
 * Idempotent: a test runs later migrations again.
 */
export const feedWordsSchema = `
CREATE OR REPLACE FUNCTION feed_words(search_vector tsvector, feed_id integer) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 10000
  RETURN array_to_tsvector(ARRAY(SELECT feed_id || ' ' || left(w, ${FEED_WORD_CHARS})
    FROM unnest(tsvector_to_array(search_vector)) w));
SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX IF NOT EXISTS ${FEED_WORDS_INDEX} ON posts USING GIN (feed_words(search_vector, feed_id));
`;

/** The index's expression, spelled as queries must spell it to use the index. */
export const FEED_WORDS_EXPRESSION = "feed_words(p.search_vector, p.feed_id)";

const LEXEME = /'((?:[^']|'')+)'(:\*)?/g;

/**
 * The operators' index query of the words (Plan.index before excluded feeds: `' ttl the'`,
 * `' pfx pro'`, `'the'`, `'prog':*`, `&`, `|`, `!`) for one feed of this index: each lexeme its
 * feed's key, a title word as the word (its weight is checked on the row: Plan.verify), a prefix
 * as the feed's keys beginning with it. Null when a word is longer than the index keeps of it.
 */
export function feedWordQuery(index: string, feedId: number): string | null {
  let fits = true;
  const query = index.replace(LEXEME, (_, quoted: string, star: string | undefined) => {
    const facet = /^ (ttl|pfx) (.*)$/s.exec(quoted);
    const word = facet === null ? quoted : facet[2]!;
    if (!keptWhole(word)) fits = false;
    const prefix = star !== undefined || facet?.[1] === "pfx";
    return `'${feedId} ${word}'${prefix ? ":*" : ""}`;
  });
  return fits ? query : null;
}

/**
 * Whether the feeds' words drive: the matches expected in the feeds over all their days (the
 * share of matches measured among the scope's posts, times the scope's posts) plus a scan's
 * fixed cost per feed, against the candidates the operators' index hands over for the tier (the
 * posts of the tier's days holding the rarest clause: the statistics' share of it).
 */
function usesFeedWords(args: {
  feeds: number;
  share: number;
  scopePosts: number;
  tierPosts: number;
  words: number;
}): boolean {
  const feedSide = args.share * args.scopePosts + args.feeds * FEED_WORD_SCAN_POSTS;
  const wordSide = args.words * Math.min(args.tierPosts, args.scopePosts);
  return feedSide < wordSide;
}

/**
 * `plan` with its feeds' queries of this index when they drive (see usesFeedWords): `share` the
 * matches' share among the scope's posts (measured or guessed), `tierPosts` the posts of the
 * days the search reads (the scope's all for every match).
 */
export function withFeedWords<P extends Plan>(plan: P, guess: Expected, share: number, tierPosts: number): P {
  const feedIds = plan.scope.feedIds;
  if (feedIds === null || plan.feedIndex === null || plan.index === null) return plan;
  const scopePosts = guess.base * guess.posts;
  const drives = usesFeedWords({ feeds: feedIds.length, share, scopePosts, tierPosts, words: guess.words });
  if (!drives) return plan;
  const queries: string[] = [];
  for (const id of feedIds) {
    const query = feedWordQuery(plan.feedIndex, id);
    if (query === null) return plan;
    queries.push(query);
  }
  return { ...plan, feedWords: queries };
}
