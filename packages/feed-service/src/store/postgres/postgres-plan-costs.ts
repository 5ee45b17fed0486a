/**
 * The tuning that remains in the PostgreSQL store's plans, in one place, each value with what it
 * assumes. The plans themselves are picked from what the store knows of the data (the planner's
 * statistics of the words, `scope_days` per day, clicked_posts per click count, the clicks per
 * window, samples of the newest posts): these values only weigh one way's cost against another's
 * or bound how far a guess may go. None is a size of the demo corpus; the figures that led to
 * them are in bench/NOTES.md.
 */

// --- costs: one kind of row read, in units of another (ratios, not sizes) ---

/**
 * A matching post's heap row read by a search, in GIN posting-list items passed over. Assumes
 * posts of a few hundred bytes whose row is read from the cache; measured on the demo corpus.
 */
export const HEAP_ROW_COST = 8;

/**
 * A clicked post read and checked against a query (its vector read from TOAST), in heap rows of
 * matches handed over by GIN: what sizes a click tier against the plain query. Assumes vectors
 * of a few hundred words (one or two TOAST pages).
 */
export const TIER_POST_COST = 3;

/**
 * A post walked by popular posts (its row and one index probe of its clicks), in window clicks
 * counted (one clicks_by_time entry and a hash update): the walk may read the window's clicks
 * divided by this before counting is cheaper. Set where the two ways cost the same on the demo
 * (78,000 window clicks against a 12,000-post walk); within a category counting also joins each
 * windowed post to its row, so there a walked post weighs less (60,000 against 12,000).
 */
export const WALK_POST_COST = 6.5;
export const CATEGORY_WALK_POST_COST = 5;

/**
 * A seek of the month ranks (an index descent and the row of the post found), in entries of the
 * ranks' id index read in order: a list since a post id counts the category's posts above (or
 * below) the id directly when they are fewer than the seeks it would take times this. Measured
 * on the long-tail corpus (bench/NOTES.md, pgroll31): about 20 µs a seek against a few tenths
 * of a µs an entry.
 */
export const RANK_SEEK_COST = 40;

// --- bounds on guesses: how far a plan goes on an estimate before it checks ---

/** A walk of the date or clicks order reads at most this many posts before the tiers take over. */
export const WALK_POSTS = 1_000;
/** Tiers are sized for this many times the matches the estimate promises (estimates can be wrong). */
export const TIER_MARGIN = 1.25;
/** A tier holds at least this many posts: below it, one tier's fixed cost outweighs its gain. */
export const MIN_TIER_POSTS = 2_000;
/** Tiers reach back at most this many days with posts (past them, every post is searched). */
export const MAX_TIER_DAYS = 1_000;
/**
 * A day tier is tried when it holds at most this share of the posts in scope: a wrong guess then
 * costs at most half again the plain query.
 */
export const MAX_TIER_SHARE = 0.5;
/**
 * Feeds whose name holds a word, at most, for its titled matches to be looked up through the
 * operators' index: each is one more ` feed ` facet ORed into the lookup's tsquery, which GIN's
 * consistent check evaluates whole for every candidate it passes over (a word that names
 * thousands of feeds made that check the whole cost: bench/NOTES.md).
 */
export const MAX_TITLED_FEEDS = 64;
/** A relevance search keeps matches from a day on when that day's newest posts hold at most this share. */
export const MAX_CUTOFF_SHARE = 0.75;
/** Click tiers tried before all posts: 16+ clicks, 8+, 4+, 2+, 1+ (powers of two: few statements). */
export const CLICK_TIERS = [16, 8, 4, 2, 1];
/** Matches a sample must find before its share replaces the statistics' estimate. */
export const MIN_SAMPLE_MATCHES = 10;
/** A sample reads the newest days that hold at least this many posts... */
export const SAMPLE_POSTS = 2_000;
/** ...and when those hold more than this many (one crowded day), walks the newest posts instead. */
export const MAX_SAMPLE_POSTS = 12_000;
/**
 * A clicked post probed by a walk in clicks order (its row found by the primary key, in no order
 * of the table) in rows of a scope read in the table's order (a bitmap heap scan of an index of
 * the scope): what weighs a walk of the clicked posts against sorting every post of a `feed:`
 * or `lang:` (postgres-operator-clicks.ts). Assumes rows read from the cache.
 */
export const WALK_PROBE_COST = 2;
/**
 * A stretch of the clicked posts that a search with operators walks in clicks order reads at
 * least this many (postgres-operator-clicks.ts): one statement's fixed cost (planning, a round
 * trip) against the posts it reads, so that a walk sized on a share that is too high does not
 * creep forward a few posts at a time.
 */
export const MIN_WALK_STRETCH = 256;
/**
 * Months of `scope_months` read per statement when a tier of the newest days of a scope is
 * counted, doubling at each (postgres-operator-scope.ts): most tiers lie in the newest few months.
 */
export const TIER_MONTHS_READ = 8;
/**
 * Post ids per block of a counted word's unclicked matches (postgres-counted-clicks.ts): a page
 * past the clicked matches tests at most the posts of the blocks it spans, each by the primary
 * key (PROBE_FEED_WORD_POSTS' probe, 10-12 µs): a block of 1,024 ids is a fifth of the page's
 * budget (PAGE_BUDGET_MS), whatever the word's matches.
 */
export const COUNTED_BLOCK_IDS = 1_024;
/** Offsets up to this are read from the start of the date order: cheaper than the day seek. */
export const SEEK_FROM_OFFSET = 1_000;
/** Posts a popular-posts walk reads per statement until its top is full. */
export const WALK_BATCH = 1_000;
/**
 * A popular-posts walk is begun only when it may read more posts than this: a top is final only
 * once the walk's all-time counts fall below its last window count, which takes thousands of
 * posts when clicks are spread over years (demo: 12,000).
 */
export const MIN_WALK_POSTS = 12_000;

// --- reuse: how long a figure that only steers a plan is kept before it is read again ---

/** The statistics' least common word share (it changes when posts are analysed). */
export const STATISTICS_TTL_MS = 60_000;
/** The posts per day that size the day tiers (a stale count sizes a tier wrong, never an answer). */
export const DAY_COUNTS_TTL_MS = 10_000;
/** The total of all clicks, which picks a popular-posts walk's probe. */
export const ALL_CLICKS_TTL_MS = 60_000;

/**
 * One feed's scan of the index of posts by feed and word (postgres-feed-words.ts: an entry
 * lookup and its posting list's first page, for each of the query's words), in candidates the
 * operators' index hands over: what a `feed:` of many small feeds weighs against its word's
 * candidates. Measured on the long-tail corpus (bench/NOTES.md, pgfeed34d): 6-12 µs a feed's
 * scan against 0.36 µs a candidate, 17-34; doubled, so that a close call keeps the operators' index.
 */
export const FEED_WORD_SCAN_POSTS = 64;

/**
 * A clicked post checked by its own probe of `posts` (the primary key, the row, the vector out of
 * TOAST), in candidates of the index of posts by feed and word: what a walk in clicks order weighs
 * against asking a feed's keys once for all its walked posts (postgres-operator-clicks.ts).
 * Measured at 1M (bench/NOTES.md, pgclick34, pgfeed34d): 10-12 µs a probe against 0.36 µs a
 * candidate; rounded down, so that a close call keeps the probes.
 */
export const PROBE_FEED_WORD_POSTS = 25;

/**
 * A post walked in date order and tested for the other side of a category within languages (an
 * index entry and its heap row), in `scope_days` rows added up (an index entry each): a page of
 * such a list reads its days from the roll-ups first when its walk would cost more
 * (postgres-scope-window.ts). Assumes rows read from the cache, where a heap row costs a few
 * index entries.
 */
export const CROSS_POST_COST = 4;

/**
 * A clicked post that a walk in clicks order reads and drops on its clicked_posts row (its feed or
 * language, migrations 33 and 34), in probes of `posts` (the primary key, the row, the vector out
 * of TOAST): what a walk of every clicked post within a `feed:` of many feeds costs beside the
 * probes of the feeds' own posts (postgres-operator-clicks.ts). Assumes both from the cache, where
 * such a row read through the clicks index costs a few tenths of a µs against a probe's 10-12 µs
 * (bench/NOTES.md, pgclick34); rounded up to a tenth so a close call keeps reading every match.
 */
export const CLICKED_ROW_COST = 0.1;

/**
 * A clicked post probed by a walk in clicks order, in clicked matches handed over by the clicked
 * posts' lexemes (migration 67: a GIN posting item, the set's narrow row, its clicked_posts row
 * joined and sorted): a search by clicks takes every clicked match from the set when the walk
 * would probe more than the set's expected matches over this (postgres-operator-clicks.ts).
 * Measured on the 200k long-tail (bench/NOTES.md, pgpfx): the 14,644 clicked matches of `pro*`
 * read and the clicks index walked to the 5,010th in 22.7 ms warm under EXPLAIN (1.5 µs a match)
 * against a probe's 10-12 µs; rounded down, so that a close call keeps the walk.
 */
export const CLICKED_LEXEME_HITS = 4;

/**
 * One candidate of a query that excludes words, checked on its `search_vector` (read out of TOAST
 * for a long post), in posts found through the search index and read for their ids: what picks
 * between checking the candidates and subtracting the posts that hold an excluded word
 * (postgres-excluded-words.ts). Measured at 1M (bench/NOTES.md, pgexcl34): 5-16 µs a checked
 * candidate warm (far more on a first call, from TOAST pages not cached) against 1.6-2 µs a
 * subtracted post.
 */
export const EXCLUDED_CHECK_POSTS = 3;

// --- the common words counted per day (postgres-counted-words.ts, migration 48) ---

/** The latency every operation answers within, at any arguments (spec §4), in ms. */
export const PAGE_BUDGET_MS = 50;
/**
 * A match of a search read from the heap and sorted by a date page that is not counted, in ms.
 * Assumes the rows are not in the cache (a deep page of a common word reads most of the table,
 * more than shared buffers hold); measured at 1M (bench/NOTES.md).
 */
export const MATCH_READ_MS = 0.0025;
/** A word with more matches than a page may read and sort within the budget is counted per day. */
export const COUNTED_WORD_MATCHES = PAGE_BUDGET_MS / MATCH_READ_MS;
/**
 * Words counted per day at most: each is one more `@@` of every post written (one binary search
 * of its sorted lexemes), a share of the insert's time the ingest bench weighs (bench/NOTES.md).
 */
export const MAX_COUNTED_WORDS = 64;
