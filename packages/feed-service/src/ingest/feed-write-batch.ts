/**
 * Group commit for an ingest pass: the refreshes that reach their write in the same turn of the
 * event loop are applied together, in one transaction of `Store.applyFeedUpdates`, which isolates
 * each feed: one that fails is rolled back alone and its refresh records the failure, the others
 * keep their posts. A small feed's refresh writes a few rows but pays a whole commit (SQLite: the
 * log write and the full-text index's segment flush); shared, the commit costs each feed a
 * fraction (figures in bench/NOTES.md). Updates queued while a batch is written form the next one.
 * A store without `applyFeedUpdates` writes each update on its own, as before.
 */
import type { FeedUpdate, FeedUpdateResult, Store } from "../store/store.js";

/** What writes one feed's update: the store itself, or a batch in front of it. */
export type FeedUpdateWriter = Pick<Store, "applyFeedUpdate">;

interface Queued {
  feedId: number;
  update: FeedUpdate;
  resolve: (result: FeedUpdateResult) => void;
  reject: (error: unknown) => void;
}

export interface FeedWriteBatchOptions {
  /**
   * A batch stops taking feeds once it holds this many posts (default 2,000), so that the write
   * lock, which readers of other processes never wait for but their writers do, is held briefly.
   */
  maxPosts?: number;
}

export class FeedWriteBatch implements FeedUpdateWriter {
  readonly #store: Store;
  readonly #maxPosts: number;
  #queue: Queued[] = [];
  #scheduled = false;
  #writing: Promise<void> | null = null;

  /**
   * @example
   * const writes = new FeedWriteBatch(store);
   * const [a, b] = await Promise.all([writes.applyFeedUpdate(1, u1), writes.applyFeedUpdate(2, u2)]);
   */
  constructor(store: Store, opts: FeedWriteBatchOptions = {}) {
    this.#store = store;
    this.#maxPosts = opts.maxPosts ?? 2_000;
  }

  applyFeedUpdate(feedId: number, update: FeedUpdate): Promise<FeedUpdateResult> {
    if (!this.#store.applyFeedUpdates) return this.#store.applyFeedUpdate(feedId, update);
    return new Promise<FeedUpdateResult>((resolve, reject) => {
      this.#queue.push({ feedId, update, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#writing) return;
    this.#scheduled = true;
    // After the I/O of this turn: every refresh whose document is ready by then joins the batch.
    setImmediate(() => {
      this.#scheduled = false;
      this.#writing = this.#writeAll().finally(() => {
        this.#writing = null;
        if (this.#queue.length > 0) this.#schedule();
      });
    });
  }

  async #writeAll(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#take();
      try {
        const outcomes = await this.#store.applyFeedUpdates!(batch);
        batch.forEach((q, i) => {
          const outcome = outcomes[i];
          if (outcome?.ok) q.resolve(outcome.result);
          else q.reject(outcome ? outcome.error : new Error("The store returned no outcome for a feed."));
        });
      } catch (error) {
        // The transaction itself failed (the database is locked or gone): no feed was written.
        for (const q of batch) q.reject(error);
      }
    }
  }

  /** The oldest queued updates up to `maxPosts` posts (always at least one). */
  #take(): Queued[] {
    let posts = 0;
    let n = 0;
    while (n < this.#queue.length) {
      posts += this.#queue[n]!.update.posts.length;
      if (n > 0 && posts > this.#maxPosts) break;
      n++;
    }
    return this.#queue.splice(0, n);
  }
}
