/**
 * The tuning left in the SQLite store's plans, in one place. Each plan picks its path from what
 * the store counts about the data (hits per term in a sample of the newest posts, clicks per window
 * from the roll-ups, posts per day); what remains here are sample sizes and the relative costs of
 * the steps they compare, each with what it assumes. Measurements behind them: bench/NOTES.md.
 */

/**
 * Term statistics for bm25 are counted among this many newest posts (sqlite-term-sample.ts).
 * Assumes a sample of this size gives a term's document frequency within a few percent for any
 * term in more than about 0.1% of posts, the ones whose weight matters for ranking.
 */
export const TERM_SAMPLE_POSTS = 32_768;

/**
 * A search's hit count is estimated from its hits among this many newest posts, when it has more
 * than `EXACT_HITS_BELOW` (sqlite-clicked-hits.ts). Assumes a common word is spread over time
 * about evenly, so the newest posts' share holds for all of them.
 */
export const HIT_SAMPLE_POSTS = 65_536;

/** Below this many hits a search's count is exact (counting them costs less than sampling). */
export const EXACT_HITS_BELOW = 20_000;

/**
 * Costs, in microseconds, of testing one post against a search in FTS5 (a rowid seek in each
 * doclist, per segment of the index: the plan multiplies by the segments) and of gathering one
 * hit into a temporary index: only their ratio decides between walking the clicked posts and
 * gathering every hit (sqlite-clicked-hits.ts), and between seeking and walking to score hits
 * spread over the index (sqlite-search-queries.ts). Assumes doclists of date keys (a few bytes a
 * delta) and first calls (pages read once either way); both are per-row costs, so the ratio
 * (about 100) does not depend on corpus size.
 */
export const FTS_TEST_COST_US = 15;
export const FTS_GATHER_COST_US = 0.15;
/**
 * On the same scale, an entry of a posting list that a walk over posts_fts reads and passes over
 * (a delta-coded rowid and its positions, no row written anywhere): a quarter of a hit gathered.
 * The `feed:` plan weighs such a walk against the per-feed statements (fts5-feed-search.ts,
 * perFeedCosts); charging the walk's entries as gathered hits picked the per-feed plan where the
 * walk cost less (bench/NOTES.md). Assumes a per-entry cost, so the ratio does not depend on
 * corpus size.
 */
export const FTS_WALK_ENTRY_COST_US = FTS_GATHER_COST_US / 4;
/**
 * On the same scale, scoring a hit as it is read (sampled_bm25 reads its position lists and its
 * length): about a thirtieth of a test, so a page of hits spread over the index is scored by
 * scoring every hit on the one read that finds them when there are fewer than about thirty per
 * post of the page, instead of a seek per post after (sqlite-clicked-hits.ts).
 */
export const FTS_SCORE_COST_US = 0.5;
/**
 * On the same scale, finding a post by its date key and reading its clicks (two index seeks):
 * about five hits gathered, or five entries of an index read in order. With every hit's key
 * known, a search by clicks sorts the hits' posts when that costs less than reading the clicked
 * posts in order until enough of them are hits (sqlite-clicked-hits.ts). A list of feeds by clicks
 * weighs the same two: a walked clicked post's row read for its feed against an entry of the
 * feeds' own index read in order (fts5-operators.ts, byFeedClicks); assumes the row's page costs
 * about what the two seeks do.
 */
export const POST_BY_KEY_COST_US = 0.75;

/**
 * A search by clicks with a range of dates (`after:`/`before:`) reads the clicked posts' index in
 * page order and passes over the hits outside the range; once it has read this many times the
 * page's end without filling it (more than 3 in 4 outside), it gives way to the plans that
 * estimate the hits first (sqlite-clicked-hits.ts), as the newest-hits walk of fts5-operators.ts
 * does (HIT_WALK_FACTOR). Assumes a read of the index costs about a hit gathered (a page of 1,000
 * then spends at most a few milliseconds before giving way), against the estimate's count of the
 * hits among the newest posts, which the stream spares when it fills the page.
 */
export const CLICKED_RANGE_FACTOR = 4;

/**
 * How far an estimate from the newest posts may be off: when the hits among them suggest more
 * than the relevance pool divided by this, relevance scores the hits newest first, which needs no
 * second walk when more than the pool match, instead of oldest first, a quarter cheaper when
 * fewer do (sqlite-search-queries.ts); when they suggest more than this many times
 * `EXACT_HITS_BELOW`, a search by clicks takes the estimate without counting (sqlite-clicked-
 * hits.ts). Assumes the sample's estimate is within a factor of two.
 */
export const SAMPLE_ESTIMATE_MARGIN = 2;

/**
 * What a walk of FTS5's lists oldest first costs against the same walk newest first: FTS5 reads a
 * leaf page backwards by reading it forwards first (bench/NOTES.md). Assumes the ratio is FTS5's,
 * per entry, and does not depend on the corpus.
 */
export const FTS_ASCENDING_SHARE = 2 / 3;

/**
 * The most hits an estimate from the newest posts may suggest for relevance to read them oldest
 * first, up to one past the pool, before the newest-first walk that a count over the pool needs:
 * that read costs FTS_ASCENDING_SHARE of the descending walk and spares the rest when at most the
 * pool match, and is lost when more do. With the true count anywhere within
 * SAMPLE_ESTIMATE_MARGIN of the estimate on a log scale, it pays on average when at most the pool
 * match with a probability over that share: an estimate up to pool x margin^(1 - 2 x share).
 */
export function ascendingFirstBelow(pool: number): number {
  return pool * SAMPLE_ESTIMATE_MARGIN ** (1 - 2 * FTS_ASCENDING_SHARE);
}

/**
 * Deep pages of the post lists seek the day where their offset lands from this offset on
 * (sqlite-day-seek.ts). Assumes skipping this many index entries costs about what reading the
 * day counts does.
 */
export const SEEK_DAYS_FROM = 500;

/**
 * A `feed:` search with words reads each matched feed's lists in a statement of its own (the
 * posts by feed's index: fts5-feed-search.ts), about a test of each list per feed and segment of
 * that index (FTS_TEST_COST_US), whatever the hits: a fixed cost that this bounds to a fifth of spec §4's
 * 50 ms, so that the plan over posts_fts (no worse than before schema 24) reads a `feed:` of more
 * feeds than that. Assumes a statement's start costs about a test, as measured (bench/NOTES.md,
 * sqlitefeed31).
 */
export const FEED_STATEMENTS_BUDGET_US = 10_000;
/**
 * On the same scale, what each segment of posts_feed_fts beyond the first adds to a phrase's seek
 * in a per-feed statement: a term lookup in that segment's %_idx and one leaf page, not a test
 * of its own. Assumes the statement's start and first segment cost a test (FTS_TEST_COST_US), as
 * measured on one, eight and eleven segments (bench/NOTES.md, sqlitefeed34d).
 */
export const FEED_SEGMENT_SEEK_COST_US = 2;

/**
 * What reading a row of the day counts costs, as entries of a posts index skipped on a first call
 * (the day counts are read whole by the start warm-up; a posts index of a million entries is read
 * from the OS page by page, about 200 entries a page): a row read in the table's own order (a list
 * of every category) about two, one read through the category's index (a seek into the table per
 * row) about six times that. The day seek stops counting days and skips the rest of the offset in
 * the list's own index once its rows cost more than that index's entries for the same days would
 * (sqlite-day-seek.ts): where thousands of feeds spread over years and languages leave a few posts
 * per row. Assumes a skipped entry costs about the same in every posts index (each a few dozen
 * bytes); both are per-row costs, so the ratio does not depend on the corpus's size.
 */
export const DAY_ROW_SCAN_COST = 2;
export const DAY_ROW_LOOKUP_COST = 12;
