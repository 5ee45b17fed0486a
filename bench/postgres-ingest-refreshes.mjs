// The PostgreSQL ingest benches' refreshes: new demo posts, 50 a refresh (or `perRefresh`),
// round-robin over the corpus's feeds (seeded, so every build writes the very same posts), applied
// through the store one after another (no fetch, no parse), or `batch` at a time through the
// store's applyFeedUpdates where it has one, as ingest's group commit (FeedWriteBatch) sends
// refreshes that finish together.
export const ingestRefreshes = 200;
export const postsPerRefresh = 50;
const defaultDist = new URL("../packages/feed-service/dist/", import.meta.url);

/** `count` refreshes of `perRefresh` demo posts over `feeds`, dated back from `at`. */
export async function demoRefreshes(
  feeds,
  {
    count = ingestRefreshes,
    at = Date.now(),
    tag = process.pid,
    dist = defaultDist,
    perRefresh = postsPerRefresh,
  } = {},
) {
  const { writeDemoPost } = await import(new URL("demo/demo-post-writer.js", dist).href);
  const { SeededRandom } = await import(new URL("demo/seeded-random.js", dist).href);
  const rng = new SeededRandom(7);
  return Array.from({ length: count }, (_, r) => {
    const feed = feeds[r % feeds.length];
    const ctx = { host: "bench.example", languageCode: "en", languageId: feed.languageId, sentenceEnd: "." };
    const posts = Array.from({ length: perRefresh }, (_, i) => {
      const post = writeDemoPost(rng, ctx, r * perRefresh + i, at - i * 60_000, at);
      return { ...post, guid: `bench-${tag}-${r}-${i}` };
    });
    return { feedId: feed.feedId, posts };
  });
}

/**
 * Applies the refreshes through the store, one after another, or `batch` at a time through
 * applyFeedUpdates when the store has it (a feed that fails there fails the run); the posts sent.
 */
export async function applyRefreshes(store, refreshes, { batch = 1 } = {}) {
  if (batch > 1 && store.applyFeedUpdates) {
    for (let i = 0; i < refreshes.length; i += batch) {
      const outcomes = await store.applyFeedUpdates(
        refreshes
          .slice(i, i + batch)
          .map(({ feedId, posts }) => ({ feedId, update: { fetchState: {}, posts } })),
      );
      for (const o of outcomes) if (!o.ok) throw o.error;
    }
  } else {
    for (const { feedId, posts } of refreshes) await store.applyFeedUpdate(feedId, { fetchState: {}, posts });
  }
  return refreshes.reduce((n, r) => n + r.posts.length, 0);
}
