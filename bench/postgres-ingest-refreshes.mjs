// The PostgreSQL ingest benches' refreshes: new demo posts, 50 a refresh, round-robin over the
// corpus's feeds (seeded, so every build writes the very same posts), applied through the store
// one after another as the service's ingest does (no fetch, no parse).
export const ingestRefreshes = 200;
export const postsPerRefresh = 50;
const defaultDist = new URL("../packages/feed-service/dist/", import.meta.url);

/** `count` refreshes of `postsPerRefresh` demo posts over `feeds`, dated back from `at`. */
export async function demoRefreshes(
  feeds,
  { count = ingestRefreshes, at = Date.now(), tag = process.pid, dist = defaultDist } = {},
) {
  const { writeDemoPost } = await import(new URL("demo/demo-post-writer.js", dist).href);
  const { SeededRandom } = await import(new URL("demo/seeded-random.js", dist).href);
  const rng = new SeededRandom(7);
  return Array.from({ length: count }, (_, r) => {
    const feed = feeds[r % feeds.length];
    const ctx = { host: "bench.example", languageCode: "en", languageId: feed.languageId, sentenceEnd: "." };
    const posts = Array.from({ length: postsPerRefresh }, (_, i) => {
      const post = writeDemoPost(rng, ctx, r * postsPerRefresh + i, at - i * 60_000, at);
      return { ...post, guid: `bench-${tag}-${r}-${i}` };
    });
    return { feedId: feed.feedId, posts };
  });
}

/** Applies the refreshes through the store, one after another; the posts stored. */
export async function applyRefreshes(store, refreshes) {
  for (const { feedId, posts } of refreshes) await store.applyFeedUpdate(feedId, { fetchState: {}, posts });
  return refreshes.length * postsPerRefresh;
}
