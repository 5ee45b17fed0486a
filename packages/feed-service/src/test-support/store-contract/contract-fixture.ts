/**
 * A small known corpus for the store contract: four feeds in three languages and two categories,
 * posts with chosen dates (including equal dates, to check ties), built only through the Store API.
 */
import assert from "node:assert/strict";
import { FeedServiceError } from "../../errors.js";
import type { IncomingPost, Store } from "../../store/store.js";

export type StoreFactory = (name: string) => Promise<Store>;

/** 2026-01-10T00:00:00Z: every instant of the corpus is relative to it. */
export const T0 = Date.UTC(2026, 0, 10);
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export function incoming(guid: string, fields: Partial<IncomingPost> = {}): IncomingPost {
  return {
    guid,
    link: `https://example.test/${guid}`,
    title: `Title ${guid}`,
    excerpt: `Excerpt ${guid}`,
    content: `<p>Body of ${guid}</p>`,
    publishedAt: null,
    updatedAt: null,
    seenAt: T0,
    languageId: 1,
    ...fields,
  };
}

export interface Corpus {
  store: Store;
  lang: { en: number; fr: number; de: number };
  cat: { web: number; data: number };
  feed: { alpha: number; beta: number; gamma: number; loose: number };
  /** Post ids by guid. */
  post: Record<string, number>;
}

/**
 * Posts, newest first by postDate (ties noted):
 * - alpha (web, en): a1 T0-1h "TypeScript generics", a2 T0-2h, a3 T0-2h (tie with a2), a4 updated-only T0-3h
 * - beta (web, fr): b1 T0-30min "Café crème", b2 seen-only T0-5d
 * - gamma (data, de): g1 T0-1d "Datenbank SQLite", g2 T0-10d
 * - loose (no category, en): l1 T0-20d
 */
export async function seedCorpus(store: Store): Promise<Corpus> {
  const fr = (await store.ensureLanguage("fr")).languageId;
  const de = (await store.ensureLanguage("de-DE")).languageId;
  const web = (await store.addCategory("Web")).categoryId;
  const data = (await store.addCategory("databases")).categoryId;
  const alpha = (
    await store.addFeed({ feedUrl: "https://alpha.test/feed", feedName: "Alpha Blog", categoryId: web })
  ).feedId;
  const beta = (
    await store.addFeed({
      feedUrl: "https://beta.test/rss",
      feedName: "beta news",
      categoryId: web,
      languageId: fr,
    })
  ).feedId;
  const gamma = (
    await store.addFeed({
      feedUrl: "https://gamma.test/atom",
      feedName: "Gamma",
      categoryId: data,
      languageId: de,
    })
  ).feedId;
  const loose = (await store.addFeed({ feedUrl: "https://loose.test/feed.json", feedName: "ALPHA blog" }))
    .feedId;

  await store.applyFeedUpdate(alpha, {
    fetchState: {},
    posts: [
      incoming("a1", { title: "TypeScript generics explained", publishedAt: T0 - HOUR }),
      incoming("a2", { title: "Node streams", publishedAt: T0 - 2 * HOUR }),
      incoming("a3", { title: "Deno and Bun", publishedAt: T0 - 2 * HOUR }),
      incoming("a4", { title: "JavaScript modules", updatedAt: T0 - 3 * HOUR, seenAt: T0 }),
    ],
  });
  await store.applyFeedUpdate(beta, {
    fetchState: {},
    posts: [
      incoming("b1", {
        title: "Café crème et TypeScript",
        content: "<p>Une <strong>recette</strong> pour le petit-déjeuner</p>",
        publishedAt: T0 - HOUR / 2,
        languageId: fr,
      }),
      incoming("b2", { title: "Nouvelles du web", seenAt: T0 - 5 * DAY, languageId: fr }),
    ],
  });
  await store.applyFeedUpdate(gamma, {
    fetchState: {},
    posts: [
      incoming("g1", {
        title: "Datenbank SQLite",
        excerpt: "Schnelle Abfragen",
        publishedAt: T0 - DAY,
        languageId: de,
      }),
      incoming("g2", { title: "PostgreSQL Replikation", publishedAt: T0 - 10 * DAY, languageId: de }),
    ],
  });
  await store.applyFeedUpdate(loose, {
    fetchState: {},
    posts: [incoming("l1", { title: "Old JavaScript news", publishedAt: T0 - 20 * DAY })],
  });

  const post: Record<string, number> = {};
  for (const p of await store.recentPosts({ limit: 100, offset: 0, languageIds: null })) {
    post[p.postLink.slice("https://example.test/".length)] = p.postId;
  }
  return { store, lang: { en: 1, fr, de }, cat: { web, data }, feed: { alpha, beta, gamma, loose }, post };
}

/** The guids of a post list, in order, for readable assertions. */
export function guids(posts: ReadonlyArray<{ postLink: string }>): string[] {
  return posts.map((p) => p.postLink.slice("https://example.test/".length));
}

let sequence = 0;

/** A database name unique within the run, readable in a failure message. */
function uniqueName(testName: string): string {
  sequence++;
  return `${sequence}-${testName}`;
}

/** Runs a test body on a fresh seeded store and closes it afterwards. */
export function withCorpus(
  factory: StoreFactory,
  body: (c: Corpus) => Promise<void>,
): (t: { name: string }) => Promise<void> {
  return async (t) => {
    const store = await factory(uniqueName(t.name));
    try {
      await body(await seedCorpus(store));
    } finally {
      await store.close();
    }
  };
}

/** Runs a test body on a fresh, empty store and closes it afterwards. */
export function withStore(
  factory: StoreFactory,
  body: (s: Store) => Promise<void>,
): (t: { name: string }) => Promise<void> {
  return async (t) => {
    const store = await factory(uniqueName(t.name));
    try {
      await body(store);
    } finally {
      await store.close();
    }
  };
}

/** An assert.rejects check: a FeedServiceError with this code (and message pattern). */
export function rejectsWith(code: string, pattern?: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof FeedServiceError, `expected a FeedServiceError, got ${String(error)}`);
    assert.equal(error.code, code);
    if (pattern) assert.match(error.message, pattern);
    return true;
  };
}
