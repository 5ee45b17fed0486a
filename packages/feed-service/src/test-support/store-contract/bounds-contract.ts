/**
 * Contract: results at the bounds where a backend may take shortcuts to keep its costs bounded
 * (spec §4 Latency). Relevance ranks every match up to 10,000 and at least the 10,000 newest beyond;
 * date and clicks orders stay exact whatever the ids; deep offsets, offsets equal to the count, and
 * windows that cut a day give exactly what a full sort would. Every expectation is computed here
 * from the data written, never read back from the order under test.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import type { PostRecord, SearchSort, Store } from "../../store/store.js";
import { DAY, HOUR, incoming, type StoreFactory, T0, withStore } from "./contract-fixture.js";

/** Newest first, ties by id descending (spec §4). */
const newestFirst = (a: PostRecord, b: PostRecord) => b.postDate - a.postDate || b.postId - a.postId;
const ids = (posts: ReadonlyArray<{ postId: number }>) => posts.map((p) => p.postId);

function searchPage(
  terms: string,
  sort: SearchSort,
  limit: number,
  offset: number,
  languageIds: number[] | null = null,
) {
  return { limit, offset, languageIds, query: parseSearchQuery(terms), sort };
}

/** Every post of the store (each feed's list read from offset 0, below any seek threshold). */
async function allPosts(store: Store, feedIds: readonly number[]): Promise<PostRecord[]> {
  const posts: PostRecord[] = [];
  for (const feedId of feedIds)
    posts.push(...(await store.postsByFeed({ feedId, limit: 100_000, offset: 0 })));
  return posts.sort(newestFirst);
}

/**
 * 2,400 posts over 40 days in three feeds, two categories and two languages, written in an order
 * unrelated to their dates (so ids are not in date order), with dates on day boundaries, a
 * millisecond either side of them, and ties.
 */
async function seedSpread(store: Store) {
  const fr = (await store.ensureLanguage("fr")).languageId;
  const web = (await store.addCategory("Web")).categoryId;
  const data = (await store.addCategory("Data")).categoryId;
  const big = (await store.addFeed({ feedUrl: "https://big.test/", feedName: "Big", categoryId: web }))
    .feedId;
  const side = (await store.addFeed({ feedUrl: "https://side.test/", feedName: "Side", categoryId: web }))
    .feedId;
  const other = (await store.addFeed({ feedUrl: "https://other.test/", feedName: "Other", categoryId: data }))
    .feedId;
  const counts: Array<[number, number]> = [
    [big, 1500],
    [side, 500],
    [other, 400],
  ];
  let n = 0;
  for (const [feedId, count] of counts) {
    const posts = [];
    for (let i = 0; i < count; i++, n++) {
      const k = (n * 7919) % 2400; // a permutation of 0..2399: dates unrelated to insertion order
      const offsets = [0, -1, 1, 3 * HOUR];
      const publishedAt =
        T0 - Math.floor(k / 60) * DAY + (offsets[k % 4] ?? 0) - (k % 7 === 0 ? 0 : k * 1000);
      posts.push(
        incoming(`p${n}`, {
          title: `${k % 3 === 0 ? "zebra" : "okapi"} number ${n}`,
          publishedAt,
          languageId: k % 5 === 0 ? fr : 1,
        }),
      );
    }
    await store.applyFeedUpdate(feedId, { fetchState: {}, posts });
  }
  return { fr, web, data, feeds: [big, side, other], big };
}

export function boundsContract(factory: StoreFactory): void {
  describe("bounds", () => {
    it(
      "pages every post list exactly at any offset, up to and past the count",
      withStore(factory, async (store) => {
        const { fr, web, feeds, big } = await seedSpread(store);
        const all = await allPosts(store, feeds);
        assert.equal(all.length, 2400);
        const check = async (
          label: string,
          expected: PostRecord[],
          read: (offset: number) => Promise<PostRecord[]>,
        ) => {
          for (const offset of [
            0,
            1,
            1999,
            2000,
            2001,
            expected.length - 20,
            expected.length - 1,
            expected.length,
          ]) {
            if (offset < 0) continue;
            assert.deepEqual(
              ids(await read(offset)),
              ids(expected.slice(offset, offset + 20)),
              `${label} at offset ${offset}`,
            );
          }
          assert.deepEqual(await read(expected.length + 1000), [], `${label} past the end`);
        };
        await check("recent", all, (offset) => store.recentPosts({ limit: 20, offset, languageIds: null }));
        await check(
          "recent in French",
          all.filter((p) => p.languageId === fr),
          (offset) => store.recentPosts({ limit: 20, offset, languageIds: [fr] }),
        );
        await check("recent in English and French", all, (offset) =>
          store.recentPosts({ limit: 20, offset, languageIds: [fr, 1] }),
        );
        const inWeb = all.filter((p) => p.categoryId === web);
        const category = { categoryId: web, sincePostId: null, sinceDate: null, languageIds: null };
        await check("category", inWeb, (offset) => store.postsByCategory({ ...category, limit: 20, offset }));
        await check(
          "category in English",
          inWeb.filter((p) => p.languageId === 1),
          (offset) => store.postsByCategory({ ...category, languageIds: [1], limit: 20, offset }),
        );
        const sinceDate = T0 - 12 * DAY - 1;
        await check(
          "category since a date",
          inWeb.filter((p) => p.postDate > sinceDate),
          (offset) => store.postsByCategory({ ...category, sinceDate, limit: 20, offset }),
        );
        const sincePostId = [...ids(inWeb)].sort((a, b) => a - b)[300]!;
        await check(
          "category since a post id",
          inWeb.filter((p) => p.postId > sincePostId),
          (offset) => store.postsByCategory({ ...category, sincePostId, limit: 20, offset }),
        );
        await check(
          "feed",
          all.filter((p) => p.feedId === big),
          (offset) => store.postsByFeed({ feedId: big, limit: 20, offset }),
        );
      }),
    );

    it(
      "sorts search hits exactly by date and by clicks, whatever the order of their ids",
      withStore(factory, async (store) => {
        const { fr, feeds } = await seedSpread(store);
        const zebras = (await allPosts(store, feeds)).filter((p) => p.postTitle.startsWith("zebra"));
        // A late edit moves an early post (a small id) to the newest date.
        const moved = zebras[zebras.length - 1]!;
        const guid = new URL(moved.postLink).pathname.slice(1);
        await store.applyFeedUpdate(moved.feedId, {
          fetchState: {},
          posts: [
            incoming(guid, { title: moved.postTitle, publishedAt: T0 + DAY, languageId: moved.languageId }),
          ],
        });
        const expected = (await allPosts(store, feeds)).filter((p) => p.postTitle.startsWith("zebra"));
        assert.equal(expected[0]!.postId, moved.postId);
        for (const offset of [0, 19, 500, expected.length - 5, expected.length]) {
          const page = await store.searchPosts(searchPage("zebra", "date", 20, offset));
          assert.deepEqual(ids(page), ids(expected.slice(offset, offset + 20)), `date, offset ${offset}`);
          assert.ok(page.every((p) => p.score > 0));
        }
        const french = expected.filter((p) => p.languageId === fr);
        assert.deepEqual(
          ids(await store.searchPosts(searchPage("zebra", "date", 50, 10, [fr]))),
          ids(french.slice(10, 60)),
        );

        // Clicks: a few posts clicked (one of them the oldest), the rest in id order after them.
        const clicked = [expected[expected.length - 1]!, expected[3]!, expected[200]!];
        for (const [i, post] of clicked.entries()) {
          for (let c = 0; c <= i; c++) await store.insertClick(post.postId, `client-${c}`, T0);
        }
        const byClicks = [...clicked].reverse().map((p) => p.postId);
        const unclicked = ids(expected)
          .filter((id) => !byClicks.includes(id))
          .sort((a, b) => b - a);
        const wanted = [...byClicks, ...unclicked];
        for (const offset of [0, 2, 3, 400, wanted.length - 1, wanted.length]) {
          const page = await store.searchPosts(searchPage("zebra", "clicks", 20, offset));
          assert.deepEqual(ids(page), wanted.slice(offset, offset + 20), `clicks, offset ${offset}`);
        }
      }),
    );

    it(
      "ranks every match by relevance up to 10,000 matches, and at least the 10,000 newest beyond",
      withStore(factory, async (store) => {
        const feedId = (await store.addFeed({ feedUrl: "https://many.test/", feedName: "Many" })).feedId;
        const weak = (i: number) =>
          incoming(`w${i}`, {
            title: `Notes ${i}`,
            content: `<p>${"filler words ".repeat(30)} quagga</p>`,
            publishedAt: T0 - i * 60_000,
          });
        await store.applyFeedUpdate(feedId, {
          fetchState: {},
          posts: Array.from({ length: 9_999 }, (_, i) => weak(i + 1)),
        });
        // The best match is the oldest post, written last (the largest id).
        await store.applyFeedUpdate(feedId, {
          fetchState: {},
          posts: [incoming("strong", { title: "Quagga", publishedAt: T0 - 30 * DAY })],
        });
        // The search page's count, at spec §4's bound: exact at 10,000.
        const count = (languageIds: number[] | null) =>
          store.countSearchMatches({ query: parseSearchQuery("quagga"), languageIds, cap: 10_000 });
        assert.equal(await count(null), 10_000, "10,000 matches counted exactly");
        assert.equal(await count([1]), 10_000, "and in their language");
        const first = await store.searchPosts(searchPage("quagga", "relevance", 5, 0));
        assert.equal(first[0]!.postTitle, "Quagga", "10,000 matches: every one is ranked");
        const last = await store.searchPosts(searchPage("quagga", "relevance", 10, 9_995));
        assert.equal(last.length, 5);

        await store.applyFeedUpdate(feedId, { fetchState: {}, posts: [weak(0)] });
        assert.equal(await count(null), 10_001, "10,001 matches: more than 10,000, and no further");
        assert.equal(await count([1]), 10_001);
        const ranked: Array<PostRecord & { score: number }> = [];
        for (let offset = 0; offset <= 10_000; offset += 1000) {
          ranked.push(...(await store.searchPosts(searchPage("quagga", "relevance", 1000, offset))));
        }
        const seen = new Set(ids(ranked));
        assert.equal(seen.size, ranked.length, "no post twice across pages");
        assert.ok(ranked.length === 10_000 || ranked.length === 10_001, `${ranked.length} ranked`);
        const byDate = await store.searchPosts(searchPage("quagga", "date", 1000, 9_500));
        assert.equal(byDate.length, 501, "date order sees all 10,001");
        assert.equal(byDate[500]!.postTitle, "Quagga", "the oldest match is last by date");
        for (const post of byDate.slice(0, 500))
          assert.ok(seen.has(post.postId), "the 10,000 newest are ranked");
        for (let i = 1; i < ranked.length; i++)
          assert.ok(ranked[i - 1]!.score >= ranked[i]!.score, "by score");
        await store.insertClick(byDate[500]!.postId, "client", T0);
        const byClicks = await store.searchPosts(searchPage("quagga", "clicks", 1, 0));
        assert.equal(byClicks[0]!.postTitle, "Quagga", "clicks order sees all 10,001");
      }),
    );

    it(
      "counts clicks and posts exactly in windows that cut a day, short or 100 years long",
      withStore(factory, async (store) => {
        const a = (await store.addFeed({ feedUrl: "https://a.test/", feedName: "A" })).feedId;
        const b = (await store.addFeed({ feedUrl: "https://b.test/", feedName: "B" })).feedId;
        const since = T0 - 2 * DAY + 7 * HOUR; // inside a day
        const dates = [since - 1, since, since + 1, since - DAY, T0 - HOUR, since - 40 * DAY];
        await store.applyFeedUpdate(a, {
          fetchState: {},
          posts: dates.map((publishedAt, i) => incoming(`a${i}`, { publishedAt })),
        });
        await store.applyFeedUpdate(b, {
          fetchState: {},
          posts: [incoming("b0", { publishedAt: since + HOUR }), incoming("b1", { publishedAt: since - 1 })],
        });
        const posts = await allPosts(store, [a, b]);
        const post = (guid: string) => posts.find((p) => p.postLink.endsWith(`/${guid}`))!.postId;
        // a3: 3 clicks before the window, 1 in it; a1: 2 in it; b0: 2 in it, one on `since` exactly.
        for (const [guid, at] of [
          ["a3", since - 5],
          ["a3", since - DAY],
          ["a3", since - 30 * DAY],
          ["a3", since + 5],
          ["a1", since + 2 * HOUR],
          ["a1", T0],
          ["b0", since],
          ["b0", since + DAY],
          ["a5", since - 1],
        ] as const) {
          await store.insertClick(post(guid), `c-${guid}-${at}`, at);
        }
        const popular = await store.mostPopularPosts({ since, limit: 10, categoryId: null });
        const newer = (x: string, y: string) =>
          posts.find((p) => p.postId === post(x))!.postDate >
          posts.find((p) => p.postId === post(y))!.postDate;
        const firstTwo = newer("a1", "b0") ? [post("a1"), post("b0")] : [post("b0"), post("a1")];
        assert.deepEqual(
          popular.map((p) => [p.postId, p.periodClicks]),
          [
            [firstTwo[0], 2],
            [firstTwo[1], 2],
            [post("a3"), 1],
          ],
        );
        assert.equal(popular[2]!.clicks, 4, "clicks stays the all-time count");
        const ever = await store.mostPopularPosts({ since: T0 - 36_500 * DAY, limit: 10, categoryId: null });
        assert.deepEqual(ids(ever).slice(0, 1), [post("a3")]);
        assert.deepEqual(
          ever.map((p) => p.periodClicks),
          [4, 2, 2, 1],
        );
        // A window starting on the first click holds every click; one a millisecond later, all but it.
        const firstClick = since - 30 * DAY;
        const fromFirst = await store.mostPopularPosts({ since: firstClick, limit: 10, categoryId: null });
        assert.deepEqual(
          fromFirst.map((p) => [p.postId, p.periodClicks]),
          ever.map((p) => [p.postId, p.periodClicks]),
        );
        const afterFirst = await store.mostPopularPosts({
          since: firstClick + 1,
          limit: 10,
          categoryId: null,
        });
        assert.deepEqual(
          afterFirst.map((p) => [p.postId, p.periodClicks]),
          [[post("a3"), 3], ...ever.slice(1).map((p) => [p.postId, p.periodClicks])],
        );
        assert.deepEqual(
          (await store.mostPopularFeeds({ since, limit: 10 })).map((f) => [f.feedId, f.periodClicks]),
          [
            [a, 3],
            [b, 2],
          ],
        );
        assert.deepEqual(
          (await store.mostPopularFeeds({ since: since + 1, limit: 10 })).map((f) => [
            f.feedId,
            f.periodClicks,
          ]),
          [
            [a, 3],
            [b, 1],
          ],
          "a click at the window's first millisecond counts, one before it does not",
        );
        assert.deepEqual(
          (await store.mostPopularFeeds({ since: T0 - 36_500 * DAY, limit: 10 })).map((f) => f.periodClicks),
          [7, 2],
        );
        assert.deepEqual(
          (await store.mostProlificFeeds({ since, limit: 10 })).map((f) => [f.feedId, f.periodPosts]),
          [
            [a, 3],
            [b, 1],
          ],
        );
        assert.deepEqual(
          (await store.mostProlificFeeds({ since: T0 - 36_500 * DAY, limit: 10 })).map((f) => f.periodPosts),
          [6, 2],
        );
      }),
    );
  });
}
