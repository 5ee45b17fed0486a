/**
 * The walk of fts5-operators.ts when one feed's posts lie spread among many others (ids far apart):
 * its batch's hits are found by a seek per date key rather than one pass over the key range, and
 * the page is the same as reading the feed's posts one by one. And a query of filters alone over
 * several feeds, read from the feed_name column newest first: the same pages as a full sort.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { isFilter, type SearchAtom, type SearchQuery } from "../../search/search-query.js";
import { sqliteBackend } from "../../test-support/test-backends.js";
import { openStore } from "../open-store.js";

/** More filler hits than the plan that reads every hit takes (FEW_HITS, 2,000). */
const ROUNDS = 22;
const FILLER_PER_ROUND = 100;

describe("search operators on SQLite: one feed spread among many", () => {
  it("finds the feed's hits by key, newest first, whatever the sort", async () => {
    const db = await sqliteBackend.newDatabase();
    try {
      const store = await openStore(db.location);
      try {
        const filler = await store.addFeed({ feedUrl: "https://feeds.test/filler", feedName: "Filler" });
        const spread = await store.addFeed({ feedUrl: "https://feeds.test/spread", feedName: "Spread" });
        const start = Date.UTC(2026, 0, 1);
        let minute = 0;
        const post = (guid: string, title: string) => ({
          guid,
          link: `https://posts.test/${guid}`,
          title,
          excerpt: "",
          content: "<p>…</p>",
          publishedAt: start + minute++ * 60_000,
          updatedAt: null,
          seenAt: start,
          languageId: 1,
        });
        // Each round: a hundred filler posts holding `common`, then one post of the spread feed
        // (every other one holding `common`), so the spread feed's ids lie a hundred apart.
        for (let round = 0; round < ROUNDS; round++) {
          await store.applyFeedUpdate(filler.feedId, {
            fetchState: {},
            posts: Array.from({ length: FILLER_PER_ROUND }, (_, i) =>
              post(`f${round}-${i}`, `Filler ${round} ${i} common`),
            ),
          });
          await store.applyFeedUpdate(spread.feedId, {
            fetchState: {},
            posts: [post(`s${round}`, round % 2 === 0 ? `Spread ${round} common` : `Spread ${round} other`)],
          });
        }
        const expected = Array.from({ length: ROUNDS }, (_, round) => round)
          .filter((round) => round % 2 === 0)
          .reverse()
          .map((round) => `Spread ${round} common`);
        // The feed filter as the operation resolves it (feed ids found by name).
        const parsed = parseSearchQuery("common feed:spread");
        const query: SearchQuery = {
          ...parsed,
          filterClauses: parsed.filterClauses?.map((clause) =>
            clause.map((atom) =>
              isFilter(atom) && atom.kind === "feed" ? { ...atom, feedIds: [spread.feedId] } : atom,
            ),
          ),
        };
        for (const sort of ["date", "relevance", "clicks"] as const) {
          const found = await store.searchPosts({ limit: 50, offset: 0, languageIds: null, query, sort });
          const titles = found.map((p) => p.postTitle);
          // Relevance ties (same length, same words) and clicks ties (none clicked) fall to the id.
          assert.deepEqual(titles, expected, sort);
          assert.ok(
            found.every((p) => p.score > 0),
            sort,
          );
        }
        assert.equal(
          await store.countSearchMatches({ query, languageIds: null, cap: 10_000 }),
          expected.length,
        );
        const second = await store.searchPosts({
          limit: 3,
          offset: 3,
          languageIds: [1],
          query,
          sort: "date",
        });
        assert.deepEqual(
          second.map((p) => p.postTitle),
          expected.slice(3, 6),
        );
      } finally {
        await store.close();
      }
    } finally {
      db.drop();
    }
  });
});

describe("search operators on SQLite: filters alone over several feeds", () => {
  it("lists their posts newest first as a full sort does, with languages, dates, exclusions", async () => {
    const db = await sqliteBackend.newDatabase();
    try {
      const store = await openStore(db.location);
      try {
        const de = (await store.ensureLanguage("de")).languageId;
        const ja = (await store.ensureLanguage("ja")).languageId;
        // Two diary feeds hold most posts (the date index's walk is the plan), a third feed's
        // posts say "diary" in their text only, and its name holds the word in a longer one.
        const feeds = await Promise.all(
          ["Diary one", "Diary two", "Notes", "Diaryland"].map((feedName, i) =>
            store.addFeed({ feedUrl: `https://feeds.test/${i}`, feedName }),
          ),
        );
        const start = Date.UTC(2025, 0, 1);
        for (let round = 0; round < 40; round++) {
          for (const [f, feed] of feeds.entries()) {
            const count = f < 2 ? 30 : 10;
            const posts = Array.from({ length: count }, (_, i) => {
              const n = round * 100 + f * 30 + i;
              // Dates out of storage order, some repeated to the millisecond across feeds.
              const date = start + ((n * 7919) % 4000) * 3_600_000 + (n % 3 === 0 ? 0 : n);
              const text = `${f === 2 ? "diary" : "entry"} ${n % 5 === 0 ? "common" : "rare"}`;
              return {
                guid: `p${n}`,
                link: `https://posts.test/${n}`,
                title: `Post ${n} ${text}`,
                excerpt: "",
                content: `<p>${text}</p>`,
                publishedAt: date,
                updatedAt: null,
                seenAt: start,
                languageId: n % 4 === 0 ? de : 1,
              };
            });
            await store.applyFeedUpdate(feed.feedId, { fetchState: {}, posts });
          }
        }
        const diary = [feeds[0]!.feedId, feeds[1]!.feedId];
        const byName = new Map([
          ["diary", diary],
          ["two", [feeds[1]!.feedId]],
          ["notes", [feeds[2]!.feedId]],
        ]);
        const codes = new Map([
          ["de", de],
          ["ja", ja],
          ["en", 1],
        ]);
        // The filters as the operation resolves them (feeds by the words of their names).
        const resolve = (terms: string): SearchQuery => {
          const parsed = parseSearchQuery(terms);
          const atom = (a: SearchAtom): SearchAtom =>
            isFilter(a) && a.kind === "feed"
              ? { ...a, feedIds: byName.get(a.words.join(" ")) ?? [] }
              : isFilter(a) && a.kind === "lang"
                ? { ...a, languageIds: a.codes.map((code) => codes.get(code)!) }
                : a;
          return {
            ...parsed,
            filterClauses: parsed.filterClauses?.map((clause) => clause.map(atom)),
            excludedFilters: parsed.excludedFilters?.map((f) => atom(f) as typeof f),
          };
        };
        // Clicks on a post in seven, one to three each: by clicks, the feeds' clicked posts come
        // first (their index by feed and clicks), then the unclicked ones by id.
        const ids = await store.searchPosts({
          query: parseSearchQuery("after:2000-01-01"),
          sort: "date",
          limit: 1000,
          offset: 0,
          languageIds: null,
        });
        for (const { postId } of ids.filter((p) => p.postId % 7 === 0)) {
          for (let c = 0; c <= postId % 3; c++) await store.recordClick(postId, `client-${c}`, start + c, 0);
        }
        const file = new Database(db.location, { readonly: true });
        const rows = file
          .prepare(
            "SELECT id, post_date AS date, feed_id AS feed, language_id AS language, title AS text, clicks FROM posts",
          )
          .all() as Array<{
          id: number;
          date: number;
          feed: number;
          language: number;
          text: string;
          clicks: number;
        }>;
        file.close();
        const newest = [...rows].sort((a, b) => b.date - a.date || b.id - a.id);
        const clicked = [...rows].sort((a, b) => b.clicks - a.clicks || b.id - a.id);
        const mid = Date.parse("2025-03-01T00:00:00Z");
        const cases: Array<[string, number[] | null, (r: (typeof rows)[0]) => boolean]> = [
          ["feed:diary", null, (r) => diary.includes(r.feed)],
          ["feed:diary", [de], (r) => diary.includes(r.feed) && r.language === de],
          ["feed:diary lang:de", null, (r) => diary.includes(r.feed) && r.language === de],
          ["feed:diary lang:ja", null, () => false],
          // More posts than are read whole by clicks (FEW_HITS): the walk then.
          ["feed:diary lang:en,de", null, (r) => diary.includes(r.feed)],
          // One feed with a language: its posts of the language from the MATCH, not its whole walk.
          ["feed:two lang:de", null, (r) => r.feed === diary[1] && r.language === de],
          ["feed:two lang:ja", null, () => false],
          ["feed:notes", [de], (r) => r.feed === feeds[2]!.feedId && r.language === de],
          ["feed:diary -feed:two", null, (r) => r.feed === diary[0]],
          ["feed:diary after:2025-03-01", null, (r) => diary.includes(r.feed) && r.date >= mid],
          ["feed:diary -common", null, (r) => diary.includes(r.feed) && !r.text.includes("common")],
          // Excluded words without positive ones: a NOT of the feeds' MATCH (one feed or several,
          // with a language, a prefix, an excluded feed).
          ["feed:two -common", null, (r) => r.feed === diary[1] && !r.text.includes("common")],
          [
            "feed:diary lang:de -common",
            null,
            (r) => diary.includes(r.feed) && r.language === de && !r.text.includes("common"),
          ],
          ["feed:diary -comm* -rare", null, () => false],
          [
            "feed:diary -common",
            [de],
            (r) => diary.includes(r.feed) && r.language === de && !r.text.includes("common"),
          ],
          [
            "feed:diary -common after:2025-03-01",
            null,
            (r) => diary.includes(r.feed) && r.date >= mid && !r.text.includes("common"),
          ],
          ["feed:diary -feed:two -comm*", null, (r) => r.feed === diary[0] && !r.text.includes("common")],
          ["feed:diary OR feed:notes", null, (r) => r.feed !== feeds[3]!.feedId],
        ];
        let compared = 0;
        for (const [terms, languageIds, pass] of cases) {
          for (const sort of ["relevance", "date", "clicks"] as const) {
            const expected = (sort === "clicks" ? clicked : newest).filter(pass).map((r) => r.id);
            for (const [offset, limit] of [
              [0, 20],
              [0, 100],
              [150, 50],
              [0, 1000],
              [Math.max(0, expected.length - 5), 20],
            ] as const) {
              const page = await store.searchPosts({
                query: resolve(terms),
                sort,
                languageIds,
                limit,
                offset,
              });
              assert.deepEqual(
                page.map((p) => p.postId),
                expected.slice(offset, offset + limit),
                `${terms} ${JSON.stringify(languageIds)} ${sort} ${offset} ${limit}`,
              );
              assert.ok(page.every((p) => p.score === 1));
              compared += page.length;
            }
          }
        }
        assert.ok(compared > 10_000, `only ${compared} posts compared`);
      } finally {
        await store.close();
      }
    } finally {
      db.drop();
    }
  });
});

describe("search operators on SQLite: a sparse feeds × language set above the few-keys cap", () => {
  it("lists the feeds' posts of a language as a full sort does, in every order", async () => {
    const db = await sqliteBackend.newDatabase();
    try {
      const store = await openStore(db.location);
      try {
        const de = (await store.ensureLanguage("de")).languageId;
        // Two journal feeds write 2,100 German posts among 3,000 (more than FEW_HITS, 2,000: no
        // capped read), a German filler feed 8,000 more: the feeds are a small share of the posts
        // (the date index is not their walk on deep pages) and the language a fifth theirs.
        const feeds = await Promise.all(
          ["Journal one", "Journal two", "Filler"].map((feedName, i) =>
            store.addFeed({ feedUrl: `https://feeds.test/${i}`, feedName }),
          ),
        );
        const start = Date.UTC(2025, 0, 1);
        const sizes = [1_500, 1_500, 8_000];
        for (let round = 0; round < 10; round++) {
          for (const [f, feed] of feeds.entries()) {
            const count = sizes[f]! / 10;
            const posts = Array.from({ length: count }, (_, i) => {
              const n = f * 100_000 + round * count + i;
              // Dates out of storage order, some repeated to the millisecond across feeds.
              const date = start + ((n * 7919) % 20_000) * 3_600_000 + (n % 3 === 0 ? 0 : n % 1000);
              return {
                guid: `p${n}`,
                link: `https://posts.test/${n}`,
                title: `Post ${n} entry`,
                excerpt: "",
                content: "<p>entry</p>",
                publishedAt: date,
                updatedAt: null,
                seenAt: start,
                languageId: f === 2 || i % 10 < 7 ? de : 1,
              };
            });
            await store.applyFeedUpdate(feed.feedId, { fetchState: {}, posts });
          }
        }
        const journals = [feeds[0]!.feedId, feeds[1]!.feedId];
        const ids = await store.searchPosts({
          query: parseSearchQuery("after:2000-01-01"),
          sort: "date",
          limit: 1000,
          offset: 0,
          languageIds: null,
        });
        for (const { postId } of ids.filter((p) => p.postId % 5 === 0)) {
          for (let c = 0; c <= postId % 3; c++) await store.recordClick(postId, `client-${c}`, start + c, 0);
        }
        const file = new Database(db.location, { readonly: true });
        const rows = file
          .prepare(
            "SELECT id, post_date AS date, feed_id AS feed, language_id AS language, clicks FROM posts",
          )
          .all() as Array<{ id: number; date: number; feed: number; language: number; clicks: number }>;
        file.close();
        const pass = (r: (typeof rows)[0]) => journals.includes(r.feed) && r.language === de;
        const newest = rows.filter(pass).sort((a, b) => b.date - a.date || b.id - a.id);
        const clicked = rows.filter(pass).sort((a, b) => b.clicks - a.clicks || b.id - a.id);
        assert.equal(newest.length, 2_100);
        const parsed = parseSearchQuery("feed:journal lang:de");
        const query: SearchQuery = {
          ...parsed,
          filterClauses: parsed.filterClauses?.map((clause) =>
            clause.map((a) =>
              isFilter(a) && a.kind === "feed"
                ? { ...a, feedIds: journals }
                : isFilter(a) && a.kind === "lang"
                  ? { ...a, languageIds: [de] }
                  : a,
            ),
          ),
        };
        for (const [q, languageIds] of [
          [query, null],
          [{ ...query, filterClauses: query.filterClauses?.slice(0, 1) }, [de]],
        ] as const) {
          for (const sort of ["relevance", "date", "clicks"] as const) {
            const expected = (sort === "clicks" ? clicked : newest).map((r) => r.id);
            for (const [offset, limit] of [
              [0, 20],
              [0, 1000],
              [900, 100],
              [1500, 20],
              [2090, 20],
            ] as const) {
              const page = await store.searchPosts({ query: q, sort, languageIds, limit, offset });
              assert.deepEqual(
                page.map((p) => p.postId),
                expected.slice(offset, offset + limit),
                `${JSON.stringify(languageIds)} ${sort} ${offset} ${limit}`,
              );
            }
          }
        }
      } finally {
        await store.close();
      }
    } finally {
      db.drop();
    }
  });
});
