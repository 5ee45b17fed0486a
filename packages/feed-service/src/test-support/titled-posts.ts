/**
 * A feed of posts known by their titles alone, for the migration tests that re-index search: each
 * title is one post, a minute older than the one before it, so a search by date lists them in the
 * order given.
 */
import { parseSearchQuery } from "../search/parse-search-query.js";
import type { Store } from "../store/store.js";
import { incoming, T0 } from "./store-contract/contract-fixture.js";

/** Stores one feed ("Notes") with a post for each title, newest first from T0. */
export async function storeTitledPosts(store: Store, titles: readonly string[]): Promise<void> {
  const { feedId } = await store.addFeed({ feedUrl: "https://feeds.test/a", feedName: "Notes" });
  await store.applyFeedUpdate(feedId, {
    fetchState: {},
    posts: titles.map((title, i) =>
      incoming(`p${i}`, {
        link: `https://posts.test/p${i}`,
        title,
        excerpt: "",
        content: "<p>…</p>",
        publishedAt: T0 - i * 60_000,
      }),
    ),
  });
}

/** The titles a search finds (first ten, newest first). */
export async function titlesFound(store: Store, terms: string): Promise<string[]> {
  const found = await store.searchPosts({
    limit: 10,
    offset: 0,
    languageIds: null,
    query: parseSearchQuery(terms),
    sort: "date",
  });
  return found.map((p) => p.postTitle);
}
