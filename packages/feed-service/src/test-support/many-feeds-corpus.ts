/**
 * A corpus for the running-sums tests of both stores: many feeds of heavy-tailed sizes (a few
 * hundred posts down to one), in 3 categories and none, 3 languages, over 3 years; each feed's
 * archive stored in shuffled order, feeds interleaved in passes, so ids say nothing of dates.
 */
import type { IncomingPost, Store } from "../store/store.js";
import { incoming } from "./store-contract/contract-fixture.js";

const DAY = 86_400_000;

export interface ManyFeedsShape {
  feeds: number;
  /** Words in each post's title, excerpt and content. */
  words: { title: number; excerpt: number; content: number };
  /** When set, the first feed is this large (uncapped) and in the first category. */
  largestFirst?: number;
  /** Posts are dated back from here. */
  now: number;
}

/** Stores the corpus; `next` is the test's seeded generator (the same draws give the same corpus). */
export async function storeManyFeeds(store: Store, next: () => number, shape: ManyFeedsShape): Promise<void> {
  const de = (await store.ensureLanguage("de")).languageId;
  const fr = (await store.ensureLanguage("fr")).languageId;
  const languages = [1, 1, de, fr];
  const categories = [
    (await store.addCategory("One")).categoryId,
    (await store.addCategory("Two")).categoryId,
    (await store.addCategory("Three")).categoryId,
    undefined,
  ];
  const word = () => `w${Math.floor(next() * 5000).toString(36)}`;
  const text = (n: number) => Array.from({ length: n }, word).join(" ");
  const feeds: Array<{ id: number; posts: IncomingPost[] }> = [];
  for (let f = 0; f < shape.feeds; f++) {
    const largest = f === 0 && shape.largestFirst !== undefined;
    const categoryId = largest ? categories[0] : categories[Math.floor(next() * categories.length)];
    const feed = await store.addFeed({
      feedUrl: `https://feed-${f}.test/rss`,
      feedName: `Feed ${f}`,
      ...(categoryId === undefined ? {} : { categoryId }),
    });
    const size = largest
      ? shape.largestFirst!
      : Math.min(400, Math.max(1, Math.round(Math.exp(1.4 * Math.sqrt(-2 * Math.log(1 - next())) * 1.2))));
    const posts = Array.from({ length: size }, (_, i) =>
      incoming(`f${f}-p${i}`, {
        link: `https://feed-${f}.test/p${i}`,
        title: `${text(shape.words.title)} ${f} ${i}`,
        excerpt: text(shape.words.excerpt),
        content: `<p>${text(shape.words.content)}</p>`,
        // Whole days for some, so that window edges fall on posts; times within the day otherwise.
        publishedAt:
          shape.now - (i % 7 === 0 ? Math.floor(next() * 1100) * DAY : Math.floor(next() * 1100 * DAY)),
        languageId: languages[Math.floor(next() * languages.length)]!,
      }),
    );
    for (let i = posts.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [posts[i], posts[j]] = [posts[j]!, posts[i]!];
    }
    feeds.push({ id: feed.feedId, posts });
  }
  // Passes: each feed's next slice of its shuffled archive, feeds in a shuffled order each time.
  for (let pass = 0; pass < 4; pass++) {
    const order = [...feeds].sort(() => next() - 0.5);
    for (const feed of order) {
      const slice = feed.posts.slice(
        Math.floor((feed.posts.length * pass) / 4),
        Math.floor((feed.posts.length * (pass + 1)) / 4),
      );
      if (slice.length > 0) await store.applyFeedUpdate(feed.id, { fetchState: {}, posts: slice });
    }
  }
}

/**
 * The corpus's clicks: `n` of them on posts drawn with a heavy head, at instants over the two
 * years before `now` in draw order (so out of time order). `ids` in the order the test reads them:
 * the same draws pick the same posts only from the same list.
 */
export async function clickAtRandom(
  store: Store,
  ids: readonly number[],
  next: () => number,
  n: number,
  now: number,
): Promise<void> {
  for (let i = 0; i < n; i++) {
    const id = ids[Math.floor(next() ** 2 * ids.length)]!;
    await store.insertClick(id, `c${i}`, now - Math.floor(next() * 730 * DAY));
  }
}

/**
 * What an upgraded database must answer as a fresh one does, on this corpus: feed rankings over
 * four windows (plus `perWindow`'s own reading of each, when given) and a category's pages since
 * a post at 30 % and 80 % of `ids` (the posts' ids in order), first and at `deepOffset`.
 */
export async function rankingAnswers(
  store: Store,
  ids: readonly number[],
  now: number,
  deepOffset: number,
  perWindow?: (since: number) => Promise<unknown>,
): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const days of [1, 45, 200, 36_500]) {
    const since = now - days * DAY;
    out.push(await store.mostProlificFeeds({ since, limit: 50 }));
    out.push(await store.mostPopularFeeds({ since, limit: 50 }));
    if (perWindow) out.push(await perWindow(since));
  }
  for (const at of [0.3, 0.8]) {
    for (const offset of [0, deepOffset]) {
      out.push(
        await store.postsByCategory({
          limit: 20,
          offset,
          categoryId: 1,
          languageIds: null,
          sincePostId: ids[Math.floor(at * ids.length)]!,
          sinceDate: null,
        }),
      );
    }
  }
  return out;
}
