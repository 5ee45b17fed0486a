/**
 * A writer process for the multi-process test (`sqlite-concurrency.test.ts`): opens the database
 * given as argv[2], then records clicks and refreshes a feed as fast as it can, as a second
 * `feed-service serve` or ingest worker would. Prints a JSON summary on stdout.
 */
import { openStore } from "../store/open-store.js";

async function run(path: string, name: string, rounds: number): Promise<void> {
  const store = await openStore(path);
  const posts = await store.recentPosts({ limit: 200, offset: 0, languageIds: null });
  const feeds = await store.feeds();
  let clicks = 0;
  let inserted = 0;
  for (let i = 0; i < rounds; i++) {
    const post = posts[(i * 7) % posts.length]!;
    await store.recordClick(post.postId, `${name}-${i}`, Date.UTC(2026, 0, 10) + i, 600_000);
    clicks++;
    if (i % 10 === 0) {
      const feed = feeds[i % feeds.length]!;
      const result = await store.applyFeedUpdate(feed.feedId, {
        fetchState: { lastFetchedAt: Date.UTC(2026, 0, 10) },
        posts: [
          {
            guid: `${name}-post-${i}`,
            link: `https://concurrent.test/${name}/${i}`,
            title: `Concurrent ${name} ${i}`,
            excerpt: "written by another process",
            content: "<p>written by another process</p>",
            publishedAt: Date.UTC(2026, 0, 9),
            updatedAt: null,
            seenAt: Date.UTC(2026, 0, 9),
            languageId: 2,
          },
        ],
      });
      inserted += result.inserted;
    }
  }
  await store.close();
  process.stdout.write(JSON.stringify({ clicks, inserted }));
}

const [path, name, rounds] = process.argv.slice(2);
if (path && name && rounds) await run(path, name, Number(rounds));
