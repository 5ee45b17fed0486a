/**
 * Posts by feed and title word (migration 37): a GIN index keyed by each post's feed and each
 * word of its title (`12 the`), beside the index of posts by feed and word
 * (postgres-feed-words.ts), whose keys hold no weights. A `feed:` search with a `title:` word then
 * reads the feeds' posts with that word in their titles, where the feeds' words hand over every
 * post holding the word anywhere and leave the title to a check on each one's row (most of them
 * fail it: bench/NOTES.md, pgops34b). Used only where the feeds' words already drive
 * (usesFeedWords): a feed's title list is part of its word list, so it never hands over more.
 */
import { FEED_WORD_CHARS, keptWhole } from "./postgres-feed-words.js";
import { conjuncts, impliedBy, TITLE } from "./postgres-index-conjuncts.js";
import type { Expected, Plan } from "./postgres-operator-plan.js";
import { HEAP_ROW_COST } from "./postgres-plan-costs.js";

/** The index's name. */
export const FEED_TITLES_INDEX = "posts_feed_titles";

/**
 * Migration 37. The title words are the lexemes of weight A of `search_vector` (the title's:
 * migration 5), as the operators' index holds them (` ttl the`: postgres-search-operators.ts);
 * each is keyed by the feed as the feeds' words are (the first FEED_WORD_CHARS characters of a
 * longer word). COST as feed_words's, for the same reason (a row's vector out of TOAST, unnested).
 * Clicks (heap-only updates of `clicks`) do not touch it. Idempotent: a test runs later migrations
 * again.
 */
export const feedTitlesSchema = `
CREATE OR REPLACE FUNCTION feed_titles(search_vector tsvector, feed_id integer) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 10000
  RETURN array_to_tsvector(ARRAY(SELECT feed_id || ' ' || left(w, ${FEED_WORD_CHARS})
    FROM unnest(tsvector_to_array(ts_filter(search_vector, '{a}'))) w));
SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX IF NOT EXISTS ${FEED_TITLES_INDEX} ON posts USING GIN (feed_titles(search_vector, feed_id));
`;

/** The index's expression, spelled as queries must spell it to use the index. */
export const FEED_TITLES_EXPRESSION = "feed_titles(p.search_vector, p.feed_id)";

/** One feed's query of this index, and whether words no title word implies are left. */
export interface FeedTitleQuery {
  titles: string;
  /**
   * Whether other conjuncts are left, which the row's `search_vector` then decides: ANDed with
   * the feeds' words as a second index condition, the planner took this index alone and ran
   * feed_words() on every row as a filter (each post's vector out of TOAST, unnested, and tested
   * against every feed's query: bench/NOTES.md, pgops34b), where the check reads the vector once.
   */
  rest: boolean;
}

/**
 * The operators' index query of the words (Plan.feedIndex: `' ttl the'`, `' pfx pro'`, `'the'`,
 * `'prog':*`, `&`, `|`) for one feed of this index: its ` ttl ` conjuncts as the feed's keys
 * (`'12 the'`), and whether conjuncts that no title word implies are left. Null when the query
 * has no title conjunct, holds a NOT, or a title word is longer than the index keeps of it.
 */
export function feedTitleQuery(index: string, feedId: number): FeedTitleQuery | null {
  const parts = conjuncts(index);
  if (parts === null) return null;
  const titles: string[] = [];
  const rest: string[] = [];
  for (const part of parts) {
    const title = TITLE.exec(part);
    if (title === null) rest.push(part);
    else titles.push(title[1]!);
  }
  if (titles.length === 0) return null;
  if (!titles.every(keptWhole)) return null;
  return {
    titles: [...new Set(titles)].map((t) => `'${feedId} ${t}'`).join(" & "),
    rest: rest.some((part) => !impliedBy(part, titles, [])),
  };
}

/**
 * `plan` with its `title:` words read from this index when the feeds' words drive it (withFeedWords
 * set `feedWords`): a feed's title list of a word is part of its list of the word, so it never
 * hands over more. Unchanged otherwise. `share` is the matches' share among the posts of the
 * scope's languages and days, `windowPosts` the posts of the days the search reads (a tier's, or
 * the scope's all), as withFeedWords takes them.
 *
 * The title lists of every day, each match's heap row read (`allDays`), against the feeds' posts
 * of those days from posts_by_feed as a bitmap (an index entry each) and the matches within them:
 * a title word's matches are few, and the bitmap of a long window costs more than the rows it
 * spares (bench/NOTES.md, pgops34b). With `allDays` no tier is read: it would read every day.
 */
export function withFeedTitles<P extends Plan>(
  plan: P,
  guess: Expected,
  share: number,
  windowPosts: number,
): P {
  const feedIds = plan.scope.feedIds;
  if (plan.feedWords === null || plan.feedIndex === null || feedIds === null) return plan;
  const split = feedIds.map((id) => feedTitleQuery(plan.feedIndex!, id));
  if (!split.every((t) => t !== null)) return plan;
  const window = Math.min(windowPosts, guess.base * guess.posts);
  const everyDay = share * guess.posts * HEAP_ROW_COST;
  const allDays = everyDay < guess.feeds * window + share * window * HEAP_ROW_COST;
  // Which conjuncts are left does not depend on the feed.
  return {
    ...plan,
    feedTitles: { queries: split.map((t) => t.titles), checkWords: split[0]!.rest, allDays },
  };
}
