/**
 * Loads the deterministic demo corpus into a store, only through the Store API that ingest and the
 * admin commands use (ensureLanguage, addCategory, addFeed, applyFeedUpdate, insertClicks,
 * addSmartCategory). The same seed, size and `now` give the same corpus, ids included.
 *
 * Posts are written day by day over the 90 days before `now`, one refresh per feed per day, so
 * post ids grow with time as they do under real ingest and a million posts load in large
 * transactions.
 */
import { FeedServiceError } from "../errors.js";
import { UNDETERMINED_CODE } from "../store/language-tags.js";
import type { ClickRow, Store } from "../store/store.js";
import { demoCategories, demoFeeds, demoSmartCategories } from "./demo-catalog.js";
import { writeDemoPost } from "./demo-post-writer.js";
import { SeededRandom } from "./seeded-random.js";

export interface DemoOptions {
  /** Number of posts; default 3,000. */
  posts?: number;
  /** The instant the corpus ends at (epoch ms); default the current time. */
  now?: number;
  /** PRNG seed; default 1. */
  seed?: number;
  onProgress?: (progress: DemoProgress) => void;
}

export interface DemoProgress {
  phase: "posts" | "clicks";
  done: number;
  total: number;
}

export interface DemoSummary {
  languages: number;
  categories: number;
  feeds: number;
  posts: number;
  clicks: number;
  smartCategories: number;
}

const DAY = 86_400_000;
const DAYS = 90;
const MAX_POSTS = 5_000_000;

interface LoadedFeed {
  readonly id: number;
  readonly host: string;
  readonly languageCode: string;
  readonly languageId: number;
  readonly weight: number;
}

function checkOptions(options: DemoOptions): { posts: number; now: number; seed: number } {
  const posts = options.posts ?? 3000;
  if (!Number.isInteger(posts) || posts < 0 || posts > MAX_POSTS) {
    throw new FeedServiceError(
      "FEED_BAD_ARGUMENT",
      `The number of demo posts must be a whole number from 0 to ${MAX_POSTS}; got ${posts}.`,
    );
  }
  const now = options.now ?? Date.now();
  if (!Number.isFinite(now))
    throw new FeedServiceError("FEED_BAD_ARGUMENT", "The demo's now must be a valid instant.");
  return { posts, now: Math.floor(now), seed: options.seed ?? 1 };
}

async function loadCatalog(store: Store): Promise<LoadedFeed[]> {
  const categoryIds: number[] = [];
  for (const name of demoCategories) categoryIds.push((await store.addCategory(name)).categoryId);
  const feeds: LoadedFeed[] = [];
  for (const f of demoFeeds) {
    const language = await store.ensureLanguage(f.language);
    const added = await store.addFeed({
      feedUrl: `https://${f.host}/feed.xml`,
      feedName: f.name,
      siteUrl: `https://${f.host}/`,
      feedDescription: f.description,
      categoryId: f.category === null ? null : categoryIds[f.category]!,
      languageId: language.languageId,
    });
    feeds.push({
      id: added.feedId,
      host: f.host,
      languageCode: f.language,
      languageId: language.languageId,
      weight: f.weight,
    });
  }
  return feeds;
}

function feedPicker(rng: SeededRandom, feeds: readonly LoadedFeed[]): () => LoadedFeed {
  const cumulative: number[] = [];
  let sum = 0;
  for (const f of feeds) {
    sum += f.weight;
    cumulative.push(sum);
  }
  return () => {
    const x = rng.next() * sum;
    let i = 0;
    while (cumulative[i]! <= x) i++;
    return feeds[i]!;
  };
}

async function loadPosts(
  store: Store,
  rng: SeededRandom,
  feeds: readonly LoadedFeed[],
  opts: { posts: number; now: number; undId: number; onProgress?: (p: DemoProgress) => void },
): Promise<void> {
  const pickFeed = feedPicker(rng, feeds);
  const start = opts.now - DAYS * DAY;
  let written = 0;
  for (let day = 0; day < DAYS; day++) {
    const count = Math.floor((opts.posts * (day + 1)) / DAYS) - Math.floor((opts.posts * day) / DAYS);
    const byFeed = new Map<LoadedFeed, ReturnType<typeof writeDemoPost>[]>();
    for (let i = 0; i < count; i++) {
      const feed = pickFeed();
      const at = Math.min(opts.now, start + day * DAY + Math.floor(rng.next() * DAY));
      // About 1% of posts have a language nobody declared or could detect.
      const languageId = rng.chance(0.01) ? opts.undId : feed.languageId;
      const ctx = {
        host: feed.host,
        languageCode: feed.languageCode,
        languageId,
        sentenceEnd: feed.languageCode === "ja" || feed.languageCode === "zh" ? "。" : ".",
      };
      const post = writeDemoPost(rng, ctx, written + i, at, opts.now);
      const list = byFeed.get(feed);
      if (list) list.push(post);
      else byFeed.set(feed, [post]);
    }
    for (const feed of feeds) {
      const posts = byFeed.get(feed);
      if (!posts) continue;
      await store.applyFeedUpdate(feed.id, {
        posts,
        fetchState: {
          lastFetchedAt: start + (day + 1) * DAY,
          nextFetchAt: opts.now + 3_600_000,
          errorCount: 0,
        },
      });
    }
    written += count;
    opts.onProgress?.({ phase: "posts", done: written, total: opts.posts });
  }
}

/** Clicks: about one post in six is clicked, a few times, mostly in the days after it appeared. */
async function loadClicks(
  store: Store,
  rng: SeededRandom,
  feeds: readonly LoadedFeed[],
  opts: { now: number; onProgress?: (p: DemoProgress) => void },
): Promise<number> {
  const clients = Array.from({ length: 2000 }, () => rng.uuid().replaceAll("-", ""));
  let clicks = 0;
  for (const [index, feed] of feeds.entries()) {
    const posts = await store.postsByFeed({ feedId: feed.id, limit: Number.MAX_SAFE_INTEGER, offset: 0 });
    // One transaction per feed: a commit per click would cost more than the click (schema 23's
    // clicked posts' index writes a segment per transaction).
    const batch: ClickRow[] = [];
    for (const post of posts) {
      if (!rng.chance(0.16)) continue;
      const n = 1 + Math.floor(-Math.log(1 - rng.next()) * 2.5);
      for (let k = 0; k < n; k++) {
        const delay = Math.floor(-Math.log(1 - rng.next()) * DAY);
        const at = Math.min(opts.now, post.postDate + delay);
        batch.push({ postId: post.postId, clientHash: rng.pickSkewed(clients), at });
        clicks++;
      }
    }
    await store.insertClicks(batch);
    opts.onProgress?.({ phase: "clicks", done: index + 1, total: feeds.length });
  }
  return clicks;
}

/**
 * Writes the demo corpus: 10 languages, 6 categories, 45 feeds, `posts` posts over the 90 days
 * before `now`, clicks and 6 smart categories. Refuses a store that already holds feeds.
 *
 * @example
 * const store = await openStore("./data/feeds.db");
 * const summary = await loadDemoData(store, { posts: 3000, now: Date.parse("2026-01-10T00:00:00Z") });
 * console.log(`${summary.posts} posts in ${summary.feeds} feeds`);
 */
export async function loadDemoData(store: Store, options: DemoOptions = {}): Promise<DemoSummary> {
  const { posts, now, seed } = checkOptions(options);
  if ((await store.adminFeeds()).length > 0) {
    throw new FeedServiceError(
      "FEED_CONFLICT",
      "The database already holds feeds; demo data loads only into an empty database.",
    );
  }
  const rng = new SeededRandom(seed);
  const feeds = await loadCatalog(store);
  const undId = (await store.ensureLanguage(UNDETERMINED_CODE)).languageId;
  await loadPosts(store, rng, feeds, { posts, now, undId, onProgress: options.onProgress });
  const clicks = await loadClicks(store, rng, feeds, { now, onProgress: options.onProgress });
  for (const s of demoSmartCategories) await store.addSmartCategory({ ...s, key: rng.uuid() });
  // The load wrote the index in thousands of transactions; searches read one doclist per segment.
  await store.optimizeSearchIndex?.();
  return {
    languages: (await store.languages()).length,
    categories: demoCategories.length,
    feeds: feeds.length,
    posts,
    clicks,
    smartCategories: demoSmartCategories.length,
  };
}
