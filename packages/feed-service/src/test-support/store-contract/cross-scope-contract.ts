/**
 * Contract: post lists within a language list whose intersection with the list's other scope is
 * empty, one post, small or large (spec §4: offset/limit over date order, ties by id, exact). A
 * backend may read such a page from the smaller side, from its roll-ups' counts, or not at all;
 * every expectation here is computed from the data written (each feed's whole list, sorted and
 * filtered here), never read back from the order under test.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import type { PostRecord, Store } from "../../store/store.js";
import { DAY, HOUR, incoming, type StoreFactory, T0, withStore } from "./contract-fixture.js";

/** Newest first, ties by id descending (spec §4). */
const newestFirst = (a: PostRecord, b: PostRecord) => b.postDate - a.postDate || b.postId - a.postId;
const ids = (posts: ReadonlyArray<{ postId: number }>) => posts.map((p) => p.postId);

/**
 * Two categories, five languages (one without posts), 2,186 posts over 60 days written in an order
 * unrelated to their dates, with ties: the large category's posts are nearly all English, with 30
 * French posts and one German; the small one's French, with 50 Dutch and 5 English.
 */
async function seedCross(store: Store) {
  const en = 1;
  const fr = (await store.ensureLanguage("fr")).languageId;
  const de = (await store.ensureLanguage("de")).languageId;
  const nl = (await store.ensureLanguage("nl")).languageId;
  const it = (await store.ensureLanguage("it")).languageId;
  const big = (await store.addCategory("Big")).categoryId;
  const small = (await store.addCategory("Small")).categoryId;
  const feed = async (name: string, categoryId: number) =>
    (await store.addFeed({ feedUrl: `https://${name}.test/`, feedName: name, categoryId })).feedId;
  const groups: Array<[number, Array<[number, number]>]> = [
    [await feed("bigen", big), [[en, 1500]]],
    [
      await feed("bigmixed", big),
      [
        [fr, 30],
        [de, 1],
      ],
    ],
    [await feed("smallfr", small), [[fr, 600]]],
    [
      await feed("smallmixed", small),
      [
        [nl, 50],
        [en, 5],
      ],
    ],
  ];
  let n = 0;
  const total = 2186;
  for (const [feedId, languages] of groups) {
    const posts = [];
    for (const [languageId, count] of languages) {
      for (let i = 0; i < count; i++, n++) {
        const k = (n * 7919) % total; // a permutation: dates unrelated to the order written
        // Every 7th post shares its date with the one before it (ties broken by id).
        const publishedAt = T0 - Math.floor(k / 37) * DAY - ((k - (k % 7 === 0 ? 1 : 0)) % 37) * HOUR;
        posts.push(
          incoming(`x${n}`, { title: `${k % 3 === 0 ? "zebra" : "okapi"} ${n}`, publishedAt, languageId }),
        );
      }
    }
    await store.applyFeedUpdate(feedId, { fetchState: {}, posts });
  }
  const all: PostRecord[] = [];
  for (const [feedId] of groups)
    all.push(...(await store.postsByFeed({ feedId, limit: 100_000, offset: 0 })));
  assert.equal(all.length, total);
  return { en, fr, de, nl, it, big, small, all: all.sort(newestFirst) };
}

/** Every page that can go wrong: first, second, middle, deep, last, one short of the end, past it. */
async function checkPages(
  label: string,
  expected: readonly PostRecord[],
  read: (limit: number, offset: number) => Promise<PostRecord[]>,
): Promise<void> {
  const n = expected.length;
  const offsets = [0, 1, Math.floor(n / 2), 1001, n - 20, n - 1, n, n + 1, n + 1000];
  for (const offset of new Set(offsets.filter((o) => o >= 0))) {
    assert.deepEqual(
      ids(await read(20, offset)),
      ids(expected.slice(offset, offset + 20)),
      `${label}: limit 20 offset ${offset} of ${n}`,
    );
  }
  assert.deepEqual(
    ids(await read(1, Math.max(0, n - 1))),
    ids(expected.slice(Math.max(0, n - 1), n)),
    `${label}: the last post`,
  );
  assert.deepEqual(ids(await read(1000, 0)), ids(expected.slice(0, 1000)), `${label}: limit 1000`);
}

export function crossScopeContract(factory: StoreFactory): void {
  describe("lists within languages, whatever their intersection", () => {
    it(
      "pages a category within languages exactly: empty, one post, small and large intersections",
      withStore(factory, async (store) => {
        const { en, fr, de, nl, it: italian, big, small, all } = await seedCross(store);
        const category = (categoryId: number, languageIds: number[]) =>
          all.filter((p) => p.categoryId === categoryId && languageIds.includes(p.languageId));
        const cases: Array<[string, number, number[], number]> = [
          ["big in Dutch (none)", big, [nl], 0],
          ["big in Italian (no posts at all)", big, [italian], 0],
          ["big in German (one)", big, [de], 1],
          ["big in Dutch and German (one)", big, [nl, de], 1],
          ["big in French (30)", big, [fr], 30],
          ["big in French and German", big, [fr, de, fr], 31],
          ["big in English (most)", big, [en], 1500],
          ["big in every language", big, [en, fr, de, nl, italian], 1531],
          ["small in English (5)", small, [en], 5],
          ["small in Dutch (50)", small, [nl], 50],
          ["small in French (most)", small, [fr], 600],
          ["small in German (none)", small, [de], 0],
        ];
        for (const [label, categoryId, languageIds, count] of cases) {
          const expected = category(categoryId, languageIds);
          assert.equal(expected.length, count, label);
          await checkPages(label, expected, (limit, offset) =>
            store.postsByCategory({
              categoryId,
              languageIds,
              sincePostId: null,
              sinceDate: null,
              limit,
              offset,
            }),
          );
        }
        // Since a date inside a day, and since a post id, on a small and a large intersection.
        const sinceDate = T0 - 20 * DAY - 5 * HOUR - 1;
        const sorted = [...ids(all)].sort((a, b) => a - b);
        const sincePostId = sorted[Math.floor(sorted.length / 3)]!;
        for (const [label, categoryId, languageIds] of [
          ["big in French", big, [fr]],
          ["big in English", big, [en]],
          ["small in English", small, [en]],
          ["big in German", big, [de]],
        ] as Array<[string, number, number[]]>) {
          await checkPages(
            `${label} since a date`,
            category(categoryId, languageIds).filter((p) => p.postDate > sinceDate),
            (limit, offset) =>
              store.postsByCategory({ categoryId, languageIds, sincePostId: null, sinceDate, limit, offset }),
          );
          await checkPages(
            `${label} since a post id`,
            category(categoryId, languageIds).filter((p) => p.postId > sincePostId),
            (limit, offset) =>
              store.postsByCategory({ categoryId, languageIds, sincePostId, sinceDate: null, limit, offset }),
          );
        }
      }),
    );

    it(
      "pages the newest posts and a search by date within rare or absent languages exactly",
      withStore(factory, async (store) => {
        const { fr, de, nl, it: italian, all } = await seedCross(store);
        const zebras = all.filter((p) => p.postTitle.startsWith("zebra"));
        for (const [label, languageIds] of [
          ["Italian (none)", [italian]],
          ["German (one)", [de]],
          ["Dutch", [nl]],
          ["German and Dutch", [de, nl]],
          ["French", [fr]],
        ] as Array<[string, number[]]>) {
          await checkPages(
            `recent in ${label}`,
            all.filter((p) => languageIds.includes(p.languageId)),
            (limit, offset) => store.recentPosts({ languageIds, limit, offset }),
          );
          // A smart category's list is its search by date (operation getPostsBySmartCategory).
          await checkPages(
            `search by date in ${label}`,
            zebras.filter((p) => languageIds.includes(p.languageId)),
            (limit, offset) =>
              store.searchPosts({
                query: parseSearchQuery("zebra"),
                sort: "date",
                languageIds,
                limit,
                offset,
              }),
          );
        }
      }),
    );
  });
}
