/**
 * A real running service for the end-to-end tests: a fresh database of the given backend (SQLite
 * in a temp folder unless told otherwise, or PostgreSQL), the real store, operation table, SOAP
 * package and HTTP server on 127.0.0.1, port 0, with a pinned clock; and a small corpus written
 * through the Store API whose every order and filter is known.
 */

import { createFeedServer, type FeedServerOptions } from "../http/feed-server.js";
import { createOperationRunner } from "../operations/operation-runner.js";
import { parseSearchQuery } from "../search/parse-search-query.js";
import { openStore } from "../store/open-store.js";
import type { QueryLimits } from "../store/query-limits.js";
import type { IncomingPost, Store } from "../store/store.js";
import { sqliteBackend, type TestBackend } from "./test-backends.js";

export const hour = 3_600_000;
export const day = 24 * hour;
/** The pinned "now" of every fixture: 2026-01-15T12:00:00Z. */
export const fixtureNow = Date.UTC(2026, 0, 15, 12, 0, 0);

export interface RunningService {
  readonly baseUrl: string;
  readonly store: Store;
  /** The database's `--database` location: another connection (process) opens it with this. */
  readonly database: string;
  close(): Promise<void>;
}

/**
 * @example
 * const service = await startTestService({ backend: postgresBackend() });
 * const fx = await seedFixture(service.store);
 * await callOperation(service.baseUrl, "getCategories");
 */
export async function startTestService(
  options: Partial<
    Pick<
      FeedServerOptions,
      "publicUrl" | "bodyTimeoutMs" | "logError" | "metricsAllow" | "siteName" | "allowPrivateFetch"
    >
  > & {
    now?: () => number;
    /** Where the fresh database lives (default SQLite). */
    backend?: TestBackend;
    /** Open the store as `serve` does, with these query limits (SQLite: query threads). */
    queryLimits?: QueryLimits;
  } = {},
): Promise<RunningService> {
  const { backend = sqliteBackend, now = () => fixtureNow, queryLimits, ...serverOptions } = options;
  const database = await backend.newDatabase();
  const store = await openStore(database.location, queryLimits ? { queryLimits } : {});
  // A suite that believes it runs on PostgreSQL must not quietly run on SQLite.
  if (store.dialect !== backend.name)
    throw new Error(`${backend.name} backend opened a ${store.dialect} store`);
  const runner = createOperationRunner({ store, parseSearch: parseSearchQuery, now });
  const service = createFeedServer({ store, runner, now, logError: () => {}, ...serverOptions });
  const address = await service.listen(0, "127.0.0.1");
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    store,
    database: database.location,
    async close() {
      await service.close();
      await store.close();
      database.drop();
    },
  };
}

/** Ids of the fixture corpus, by the names the tests use. */
export interface Fixture {
  readonly languages: { en: number; fr: number; de: number };
  readonly categories: { apple: number; banana: number; cherry: number };
  readonly feeds: { flexWeekly: number; airNotes: number; berlinBlog: number; zeta: number };
  /** Post ids by short name (a1, a2, a3, b1, b2, c1, c2, d1). */
  readonly posts: Record<string, number>;
  readonly smart: { id: number; key: string };
}

function post(
  guid: string,
  title: string,
  languageId: number,
  at: { published?: number; updated?: number; seen: number },
  excerpt = "",
): IncomingPost {
  return {
    guid,
    link: `https://example.org/${guid}`,
    title,
    excerpt: excerpt || `${title} excerpt`,
    content: `<p>${excerpt || title}</p>`,
    publishedAt: at.published ?? null,
    updatedAt: at.updated ?? null,
    seenAt: at.seen,
    languageId,
  };
}

/**
 * Writes the corpus. Recent order (postDate desc, ties by id desc): b2, a1 (both now-1h), b1, d1,
 * c2, a2, c1, a3. Clicks: a1 ×3 (now-1h), a2 ×1 (now-2d), b1 ×2 (now-20d), c1 ×1 (now-7h).
 */
export async function seedFixture(store: Store, now = fixtureNow): Promise<Fixture> {
  const en = 1;
  const fr = (await store.ensureLanguage("fr")).languageId;
  const de = (await store.ensureLanguage("de-DE")).languageId;
  const banana = (await store.addCategory("banana")).categoryId;
  const apple = (await store.addCategory("Apple")).categoryId;
  const cherry = (await store.addCategory("cherry")).categoryId;
  const flexWeekly = (
    await store.addFeed({
      feedUrl: "https://flex.example.org/feed",
      feedName: "Flex Weekly",
      categoryId: apple,
      languageId: en,
    })
  ).feedId;
  const airNotes = (
    await store.addFeed({
      feedUrl: "https://air.example.org/rss",
      feedName: "air notes",
      categoryId: apple,
      languageId: fr,
    })
  ).feedId;
  const berlinBlog = (
    await store.addFeed({
      feedUrl: "https://berlin.example.org/atom",
      feedName: "Berlin Blog",
      categoryId: banana,
      languageId: de,
    })
  ).feedId;
  const zeta = (
    await store.addFeed({
      feedUrl: "https://zeta.example.org/feed.json",
      feedName: "Zeta Uncategorised",
      categoryId: null,
      languageId: en,
    })
  ).feedId;
  const seen = now - hour / 2;
  const update = (posts: IncomingPost[]) => ({ posts, fetchState: { lastFetchedAt: now } });
  await store.applyFeedUpdate(
    flexWeekly,
    update([
      post("a1", "Flex builder released", en, { published: now - hour, seen }),
      post("a2", "Flex and AIR together", en, { published: now - 30 * hour, seen }),
      post("a3", "Old flex news", en, { published: now - 40 * day, seen }),
    ]),
  );
  await store.applyFeedUpdate(
    airNotes,
    update([
      post("b1", "Café déjà vu", fr, { published: now - 2 * hour, seen }, "un café au lait"),
      post("b2", "Nouvelle version", fr, { published: now - hour, seen }),
    ]),
  );
  await store.applyFeedUpdate(
    berlinBlog,
    update([
      post("c1", "Berliner Mauer", de, { published: now - 10 * day, seen }),
      post("c2", "Zebrastreifen", de, { updated: now - 5 * hour, seen }),
    ]),
  );
  await store.applyFeedUpdate(zeta, update([post("d1", "Uncategorised post", en, { seen: now - 3 * hour })]));
  const all = await store.recentPosts({ limit: 100, offset: 0, languageIds: null });
  const posts: Record<string, number> = {};
  for (const p of all) posts[p.postLink.slice("https://example.org/".length)] = p.postId;
  const clicks: Array<[string, number, number]> = [
    ["a1", 3, now - hour],
    ["a2", 1, now - 2 * day],
    ["b1", 2, now - 20 * day],
    ["c1", 1, now - 7 * hour],
  ];
  for (const [name, count, at] of clicks) {
    for (let i = 0; i < count; i++) await store.insertClick(posts[name], `client-${i}`, at);
  }
  const smart = await store.addSmartCategory({ name: "Flex stuff", query: "flex -old" });
  return {
    languages: { en, fr, de },
    categories: { apple, banana, cherry },
    feeds: { flexWeekly, airNotes, berlinBlog, zeta },
    posts,
    smart: { id: smart.smartCategoryId, key: smart.smartCategoryKey },
  };
}
