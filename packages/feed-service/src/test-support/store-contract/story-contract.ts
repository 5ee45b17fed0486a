/**
 * Contract: one story once within a single refresh. SQLite writes a refresh entry by entry, so an
 * entry meets the ones stored before it in the same document; PostgreSQL looks a refresh's entries
 * up as arrays and must end the same way (postgres-story-writer.ts, matchWithinRefresh).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IncomingPost, Store } from "../../store/store.js";
import { longStoryTexts, storyPost } from "../story-posts.js";
import { HOUR, type StoreFactory, T0, withStore } from "./contract-fixture.js";

const { tram, garden } = longStoryTexts;

const entry = (guid: string, link: string, title: string, excerpt: string, hoursAgo: number) =>
  storyPost(guid, link, title, excerpt, T0 - hoursAgo * HOUR);

async function feedWith(store: Store, name: string, posts: IncomingPost[]) {
  const feedId = (await store.addFeed({ feedUrl: `https://${name}.test/feed`, feedName: name })).feedId;
  const result = await store.applyFeedUpdate(feedId, { fetchState: {}, posts });
  return { feedId, result };
}

const rows = (posts: ReadonlyArray<{ postTitle: string; postLink: string }>) =>
  posts.map((p) => [p.postTitle, p.postLink]);

export function storyContract(factory: StoreFactory): void {
  describe("one story once within one refresh", () => {
    const document = [
      entry("tram", "https://city.test/tram", "Tram line extended", tram, 1),
      // The same story again, its link with tracking parameters, its text with a footer.
      entry(
        "tram-shared",
        "https://city.test/tram/?utm_source=newsletter&fbclid=x",
        "Tram line extended (shared)",
        `${tram} Shared from the newsletter.`,
        1,
      ),
      entry("garden", "https://city.test/garden", "A garden path", garden, 2),
      // Republished under another guid and link: the garden story's text, cut a little.
      entry("garden-again", "https://city.test/2026/garden-path", "A garden path", garden.slice(0, -12), 2),
      // Same link with tracking parameters, different short texts: a link counts across feeds only.
      entry("note-1", "https://city.test/notes", "Note", "Back online.", 3),
      entry("note-2", "https://city.test/notes?utm_medium=rss", "Note", "Down for repairs.", 3),
    ];

    it(
      "stores a copy of an earlier entry of the same document once, under the later entry's link and title",
      withStore(factory, async (store) => {
        const { feedId, result } = await feedWith(store, "city", document);
        assert.deepEqual(result, { inserted: 4, updated: 2 });
        const expected = [
          ["Tram line extended (shared)", "https://city.test/tram/?utm_source=newsletter&fbclid=x"],
          ["A garden path", "https://city.test/2026/garden-path"],
          ["Note", "https://city.test/notes?utm_medium=rss"],
          ["Note", "https://city.test/notes"],
        ];
        const recent = await store.recentPosts({ limit: 10, offset: 0, languageIds: null });
        assert.deepEqual(rows(recent), expected);
        assert.deepEqual(rows(await store.postsByFeed({ feedId, limit: 10, offset: 0 })), expected);
        // The story keeps its first entry's date.
        assert.equal(recent[0]!.postDate, T0 - HOUR);
        assert.equal((await store.feedById(feedId))?.postCount, 4);
        assert.equal((await store.alsoIn(recent.map((p) => p.postId))).size, 0, "never its own feed");
        assert.deepEqual(
          (await store.storyMerges(10)).map((m) => [m.storyId, m.copyGuid, m.mergedBy]).sort(),
          [
            [recent[0]!.postId, "tram-shared", "text"],
            [recent[1]!.postId, "garden-again", "text"],
          ].sort(),
        );
        // The same document again: each first entry, still there under its guid, takes its own
        // fields back (a changed entry updates its post in place); after that nothing changes.
        const again = await store.applyFeedUpdate(feedId, { fetchState: {}, posts: document });
        assert.deepEqual(again, { inserted: 0, updated: 2 });
        const settled = [
          ["Tram line extended", "https://city.test/tram"],
          ["A garden path", "https://city.test/garden"],
          ...expected.slice(2),
        ];
        assert.deepEqual(rows(await store.recentPosts({ limit: 10, offset: 0, languageIds: null })), settled);
        assert.deepEqual(await store.applyFeedUpdate(feedId, { fetchState: {}, posts: document }), {
          inserted: 0,
          updated: 0,
        });
        assert.deepEqual(rows(await store.postsByFeed({ feedId, limit: 10, offset: 0 })), settled);
        assert.equal((await store.feedById(feedId))?.postCount, 4);
        assert.equal((await store.storyMerges(10)).length, 2);
      }),
    );

    it(
      "keeps copies of an earlier entry and of another feed's story apart in one refresh",
      withStore(factory, async (store) => {
        const blog = await feedWith(store, "blog", [
          entry("b-garden", "https://blog.test/garden", "Garden", garden, 2),
        ]);
        // The first tram entry, rewritten by the second, is the story the third copies; the garden
        // entry is a copy of the blog's stored story, listed in the planet too.
        const { feedId, result } = await feedWith(store, "planet", [
          entry("p-tram", "https://planet.test/tram", "Tram", tram, 1),
          entry("p-tram-2", "https://planet.test/tram-2", "Tram, again", `${tram} Shared again.`, 1),
          entry(
            "p-tram-3",
            "https://planet.test/tram-3",
            "Tram, third",
            `${tram} Shared again. And again.`,
            1,
          ),
          entry("p-garden", "https://planet.test/garden", "Garden (planet)", garden, 2),
        ]);
        assert.deepEqual(result, { inserted: 2, updated: 2 });
        const recent = await store.recentPosts({ limit: 10, offset: 0, languageIds: null });
        assert.deepEqual(rows(recent), [
          ["Tram, third", "https://planet.test/tram-3"],
          ["Garden", "https://blog.test/garden"],
        ]);
        assert.equal(recent[1]!.feedId, blog.feedId);
        const also = await store.alsoIn(recent.map((p) => p.postId));
        assert.deepEqual(also.get(recent[1]!.postId), [{ feedId, feedName: "planet" }]);
        assert.equal(also.has(recent[0]!.postId), false);
        assert.deepEqual((await store.storyMerges(10)).map((m) => [m.copyGuid, m.storyId]).sort(), [
          ["p-garden", recent[1]!.postId],
          ["p-tram-2", recent[0]!.postId],
          ["p-tram-3", recent[0]!.postId],
        ]);
        assert.equal((await store.feedById(feedId))?.postCount, 2);
      }),
    );
  });
}
