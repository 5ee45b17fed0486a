/**
 * The posts of a `feed:` scope's feeds per day, newest first, from the feeds' own running post
 * counts (migration 27, postgres-running-sums.ts: per feed, its posts through the end of each
 * 64-day block, and within a block through the end of each day): what sizes the tiers of a search
 * limited to some feeds (postgres-search-operators.ts) on the posts it can find, where counting
 * every feed's posts per day (ScopeDays) sized them on all posts times the feeds' share of the
 * total, a share that drifts with the feeds' ages (a tier of `feed:日 the` fell short and was read
 * again, bench/NOTES.md). One row per feed for the blocks, one per feed active in a block for its
 * days, read only where a count lands; the whole window's blocks at once (a feed's blocks are one
 * array). Exactness does not rest on it: a tier is every post of the scope since its first day.
 */
import { rows, type Sql } from "./postgres-connection.js";
import { SUM_BLOCK_DAYS } from "./postgres-running-sums.js";

/** A range of days (one day when first = last) and the feeds' posts in it. */
interface Counted {
  first: number;
  last: number;
  n: number;
}

/** Blocks read by the first statement past the window's last block; each next one reads twice as many. */
const FIRST_BLOCKS_READ = 4;

export class FeedDays {
  readonly #sql: Sql;
  readonly #feedIds: readonly number[];
  readonly #from: number;
  readonly #last: number;
  /** Counted so far, newest first, contiguous. */
  readonly #counts: Counted[] = [];
  /** What to read next: the last block's days, whole blocks down from #block, the first block's days, nothing. */
  #next: "last" | "blocks" | "first" | "done" = "last";
  #block = 0;
  #chunk = FIRST_BLOCKS_READ;

  /**
   * `window`: the scope's first and last day (null: open); `days`: the newest and oldest days with
   * posts now.
   */
  constructor(
    sql: Sql,
    feedIds: readonly number[],
    window: { fromDay: number | null; lastDay: number | null },
    days: { newest: number; oldest: number },
  ) {
    this.#sql = sql;
    this.#feedIds = feedIds;
    this.#last = Math.min(window.lastDay ?? days.newest, days.newest);
    this.#from = Math.max(window.fromDay ?? days.oldest, days.oldest);
    if (this.#from > this.#last) this.#next = "done";
  }

  /**
   * The first day of the newest days that hold `target` of the feeds' posts, with the posts they
   * hold; null when all the window's days hold fewer.
   */
  async holding(target: number): Promise<{ first: number; posts: number } | null> {
    let posts = 0;
    for (let i = 0; ; ) {
      if (i === this.#counts.length && !(await this.#readMore())) return null;
      const c = this.#counts[i]!;
      if (posts + c.n < target) {
        posts += c.n;
        i++;
      } else if (c.first === c.last) {
        return { first: c.first, posts: posts + c.n };
      } else {
        // The count lands in this block: its days instead.
        this.#counts.splice(i, 1, ...(await this.#perDay(c.first, c.last)));
      }
    }
  }

  /**
   * Reads the next counts, as ScopeDays reads months: the window's last block by its days, whole
   * blocks a few at a time, its first block by its days (both partly outside the window). False
   * when every day of the window is counted.
   */
  async #readMore(): Promise<boolean> {
    const lastBlock = Math.floor(this.#last / SUM_BLOCK_DAYS);
    const firstBlock = Math.floor(this.#from / SUM_BLOCK_DAYS);
    const read = this.#counts.length;
    while (this.#counts.length === read && this.#next !== "done") {
      if (this.#next === "last") {
        this.#counts.push(
          ...(await this.#perDay(Math.max(lastBlock * SUM_BLOCK_DAYS, this.#from), this.#last)),
        );
        this.#next = lastBlock > firstBlock + 1 ? "blocks" : lastBlock > firstBlock ? "first" : "done";
        this.#block = lastBlock - 1;
      } else if (this.#next === "blocks") {
        const low = Math.max(firstBlock + 1, this.#block - this.#chunk + 1);
        // Each feed's posts in each block, from its running sums (running_at: migration 27).
        const blocks = await rows<{ block: number; n: number }>(
          this.#sql,
          `SELECT b AS block, sum(running_at(s.first_block, s.through, b) - running_at(s.first_block, s.through, b - 1))::float8 AS n
            FROM feed_post_sums s CROSS JOIN generate_series($2::int, $3::int) AS b
            WHERE s.feed_id = ANY($1::int[]) GROUP BY b ORDER BY b DESC`,
          [this.#feedIds, low, this.#block],
        );
        for (const { block, n } of blocks) {
          if (n > 0)
            this.#counts.push({ first: block * SUM_BLOCK_DAYS, last: (block + 1) * SUM_BLOCK_DAYS - 1, n });
        }
        this.#block = low - 1;
        this.#chunk *= 2;
        if (this.#block <= firstBlock) this.#next = "first";
      } else {
        this.#counts.push(
          ...(await this.#perDay(this.#from, Math.min((firstBlock + 1) * SUM_BLOCK_DAYS - 1, this.#last))),
        );
        this.#next = "done";
      }
    }
    return this.#counts.length > read;
  }

  /**
   * The feeds' posts on each day from `first` to `last` (one block), newest first; days without
   * posts left out.
   */
  async #perDay(first: number, last: number): Promise<Counted[]> {
    const block = Math.floor(first / SUM_BLOCK_DAYS);
    // `through[o]`: a feed's posts in the block through its day o (offset 0 first); none after
    // the array's end.
    const days = await rows<{ day: number; n: number }>(
      this.#sql,
      `SELECT ($1::int * ${SUM_BLOCK_DAYS} + u.o - 1)::int AS day, sum(u.t - coalesce(d.through[u.o - 1], 0))::float8 AS n
        FROM feed_post_days d, unnest(d.through) WITH ORDINALITY AS u(t, o)
        WHERE d.block = $1 AND d.feed_id = ANY($2::int[]) AND $1::int * ${SUM_BLOCK_DAYS} + u.o - 1 BETWEEN $3 AND $4
        GROUP BY 1 HAVING sum(u.t - coalesce(d.through[u.o - 1], 0)) > 0 ORDER BY 1 DESC`,
      [block, this.#feedIds, first, last],
    );
    return days.map((d) => ({ first: d.day, last: d.day, n: d.n }));
  }
}
