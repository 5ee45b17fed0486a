/** Contract: the post lists (recent, by category, by feed) with their orderings, filters and paging. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DAY, guids, HOUR, incoming, type StoreFactory, T0, withCorpus } from "./contract-fixture.js";

const all = { limit: 100, offset: 0, languageIds: null };

export function postListContract(factory: StoreFactory): void {
  describe("recentPosts", () => {
    it(
      "lists newest postDate first, ties by postId descending, postDate = published ?? updated ?? seen",
      withCorpus(factory, async ({ store, post }) => {
        const posts = await store.recentPosts(all);
        assert.deepEqual(guids(posts), ["b1", "a1", "a3", "a2", "a4", "g1", "b2", "g2", "l1"]);
        assert.ok(post.a3! > post.a2!, "a3 was inserted after a2, so it has the larger id");
        const byGuid = Object.fromEntries(posts.map((p) => [guids([p])[0], p]));
        assert.equal(byGuid.a4!.postDate, T0 - 3 * HOUR, "updated time when not published");
        assert.equal(byGuid.b2!.postDate, T0 - 5 * DAY, "first-seen time when neither");
      }),
    );

    it(
      "returns every column of the post set with its joined feed and category",
      withCorpus(factory, async ({ store, feed, cat, lang, post }) => {
        const [b1] = await store.recentPosts({ limit: 1, offset: 0, languageIds: null });
        assert.deepEqual(b1, {
          postId: post.b1,
          postTitle: "Café crème et TypeScript",
          postLink: "https://example.test/b1",
          postExcerpt: "Excerpt b1",
          postDate: T0 - HOUR / 2,
          feedId: feed.beta,
          feedName: "beta news",
          categoryId: cat.web,
          categoryName: "Web",
          languageId: lang.fr,
          clicks: 0,
        });
        const [l1] = await store.postsByFeed({ limit: 1, offset: 0, feedId: feed.loose });
        assert.equal(l1!.categoryId, null);
        assert.equal(l1!.categoryName, null);
      }),
    );

    it(
      "pages with limit and offset, and limit 0 gives nothing",
      withCorpus(factory, async ({ store }) => {
        assert.deepEqual(guids(await store.recentPosts({ limit: 3, offset: 2, languageIds: null })), [
          "a3",
          "a2",
          "a4",
        ]);
        assert.deepEqual(await store.recentPosts({ limit: 0, offset: 0, languageIds: null }), []);
        assert.deepEqual(await store.recentPosts({ limit: 10, offset: 50, languageIds: null }), []);
      }),
    );

    it(
      "filters on the post's language; unknown ids match nothing; an empty list matches nothing",
      withCorpus(factory, async ({ store, lang }) => {
        const fr = await store.recentPosts({ ...all, languageIds: [lang.fr] });
        assert.deepEqual(guids(fr), ["b1", "b2"]);
        const frDe = await store.recentPosts({ ...all, languageIds: [lang.de, lang.fr] });
        assert.deepEqual(guids(frDe), ["b1", "g1", "b2", "g2"]);
        assert.deepEqual(await store.recentPosts({ ...all, languageIds: [9999] }), []);
        assert.deepEqual(await store.recentPosts({ ...all, languageIds: [] }), []);
      }),
    );

    it(
      "an empty store lists nothing",
      withCorpus(factory, async ({ store, feed }) => {
        for (const id of Object.values(feed)) await store.removeFeed(id);
        assert.deepEqual(await store.recentPosts(all), []);
      }),
    );
  });

  describe("postsByCategory", () => {
    const page = { limit: 100, offset: 0, languageIds: null, sincePostId: null, sinceDate: null };

    it(
      "lists the posts of the category's feeds, newest first",
      withCorpus(factory, async ({ store, cat }) => {
        const web = await store.postsByCategory({ ...page, categoryId: cat.web });
        assert.deepEqual(guids(web), ["b1", "a1", "a3", "a2", "a4", "b2"]);
        const data = await store.postsByCategory({ ...page, categoryId: cat.data });
        assert.deepEqual(guids(data), ["g1", "g2"]);
        assert.deepEqual(await store.postsByCategory({ ...page, categoryId: 9999 }), []);
      }),
    );

    it(
      "sincepost as an id returns only posts with a larger id",
      withCorpus(factory, async ({ store, cat, post }) => {
        const after = await store.postsByCategory({ ...page, categoryId: cat.web, sincePostId: post.a3! });
        assert.deepEqual(guids(after), ["b1", "a4", "b2"]);
        assert.ok(after.every((p) => p.postId > post.a3!));
      }),
    );

    it(
      "sincepost as a date returns only posts dated strictly after it",
      withCorpus(factory, async ({ store, cat }) => {
        const after = await store.postsByCategory({ ...page, categoryId: cat.web, sinceDate: T0 - 2 * HOUR });
        assert.deepEqual(guids(after), ["b1", "a1"]);
      }),
    );

    it(
      "filters on language and pages",
      withCorpus(factory, async ({ store, cat, lang }) => {
        const en = await store.postsByCategory({ ...page, categoryId: cat.web, languageIds: [lang.en] });
        assert.deepEqual(guids(en), ["a1", "a3", "a2", "a4"]);
        const paged = await store.postsByCategory({ ...page, categoryId: cat.web, limit: 2, offset: 1 });
        assert.deepEqual(guids(paged), ["a1", "a3"]);
        assert.deepEqual(await store.postsByCategory({ ...page, categoryId: cat.web, limit: 0 }), []);
      }),
    );

    it(
      "follows the feed out of a removed category",
      withCorpus(factory, async ({ store, cat }) => {
        assert.equal(await store.removeCategory(cat.data), true);
        assert.deepEqual(await store.postsByCategory({ ...page, categoryId: cat.data }), []);
        const g1 = (await store.recentPosts(all)).find((p) => p.postTitle === "Datenbank SQLite");
        assert.equal(g1?.categoryId, null);
      }),
    );
  });

  describe("postsByFeed", () => {
    it(
      "lists one feed's posts newest first, with paging",
      withCorpus(factory, async ({ store, feed }) => {
        assert.deepEqual(guids(await store.postsByFeed({ limit: 10, offset: 0, feedId: feed.alpha })), [
          "a1",
          "a3",
          "a2",
          "a4",
        ]);
        assert.deepEqual(guids(await store.postsByFeed({ limit: 2, offset: 2, feedId: feed.alpha })), [
          "a2",
          "a4",
        ]);
        assert.deepEqual(await store.postsByFeed({ limit: 10, offset: 0, feedId: 9999 }), []);
      }),
    );

    it(
      "keeps the first-seen time and updates the post in place on a later refresh",
      withCorpus(factory, async ({ store, feed, post }) => {
        await store.insertClick(post.b2!, "client", T0);
        const result = await store.applyFeedUpdate(feed.beta, {
          fetchState: {},
          posts: [
            incoming("b2", { title: "Nouvelles du web (mise à jour)", seenAt: T0, languageId: 2 }),
            incoming("b3", { title: "Troisième", publishedAt: T0 - 6 * DAY }),
            incoming("b1", {
              title: "Café crème et TypeScript",
              content: "<p>Une <strong>recette</strong> pour le petit-déjeuner</p>",
              publishedAt: T0 - HOUR / 2,
              languageId: (await store.ensureLanguage("fr")).languageId,
            }),
          ],
        });
        assert.deepEqual(result, { inserted: 1, updated: 1 });
        const posts = await store.postsByFeed({ limit: 10, offset: 0, feedId: feed.beta });
        assert.deepEqual(guids(posts), ["b1", "b2", "b3"]);
        const b2 = posts[1]!;
        assert.equal(b2.postId, post.b2, "same row");
        assert.equal(b2.postTitle, "Nouvelles du web (mise à jour)");
        assert.equal(b2.postDate, T0 - 5 * DAY, "first-seen time kept");
        assert.equal(b2.languageId, 2);
        const beta = await store.feedById(feed.beta);
        assert.equal(beta?.postCount, 3);
        assert.equal(beta?.lastPostDate, T0 - HOUR / 2);
        const langs = new Map((await store.aggregateLanguageData(T0)).map((l) => [l.languageCode, l]));
        assert.deepEqual(
          ["en", "fr", "und"].map((code) => [langs.get(code)?.postCount, langs.get(code)?.clicks]),
          [
            [6, 0],
            [1, 0],
            [1, 1],
          ],
          "the post and its click moved to und",
        );
      }),
    );
  });
}
