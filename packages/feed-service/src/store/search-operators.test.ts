/**
 * The search operators of spec §4 (`word*`, `title:`, `feed:`, `lang:`, `after:`, `before:`), on
 * SQLite and on PostgreSQL: a small corpus and a table of queries, each with the exact set of
 * posts it must find through the search operation (parser, operator resolution and store), in
 * every order, run on both backends, which must therefore agree; smart categories and the match
 * count take the same queries. A filler feed of 2,100 posts holding the word `common` makes
 * queries with that word take the store's other plan (walking the filtered posts in order rather
 * than reading the hits), so both plans are checked against the same answers.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import pg from "pg";
import { FeedServiceError } from "../errors.js";
import { createOperationRunner, type OperationRunner } from "../operations/operation-runner.js";
import { parseSearchQuery } from "../search/parse-search-query.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";
import { openStore } from "./open-store.js";
import type { IncomingPost, Store } from "./store.js";

const at = (iso: string) => Date.parse(iso);

/** guid -> [feed, language, published, title, content]. */
const posts: Record<string, [string, string, string, string, string]> = {
  r1: [
    "Rust Weekly",
    "en",
    "2026-01-05T10:00:00Z",
    "PostgreSQL tuning guide",
    "Indexes and vacuum for postgres servers, common sense.",
  ],
  r2: [
    "Rust Weekly",
    "en",
    "2026-01-06T00:00:00Z",
    "Release notes",
    "The release of Rust 1.90 brings postgresql support.",
  ],
  r3: [
    "Rust Weekly",
    "en",
    "2026-01-07T23:59:59.999Z",
    "The borrow checker",
    "Lifetimes explained, a common question.",
  ],
  c1: ["Café Society", "fr", "2026-01-06T12:00:00Z", "Crème brûlée recette", "Une recette de café."],
  c2: ["Café Society", "fr", "2026-01-08T08:00:00Z", "Le café de la gare", "Ouvert l'été, un lieu common."],
  b1: [
    "Berlin Tech Blog",
    "de",
    "2026-01-04T09:00:00Z",
    "Straßenbahn in Berlin",
    "Die Linie fährt täglich. PostgreSQL Datenbank.",
  ],
  b2: [
    "Berlin Tech Blog",
    "de",
    "2026-01-07T00:00:00Z",
    "Größe der Datenbank",
    "Über die Maße von Postgres, common.",
  ],
  t1: ["Two Words Daily", "en", "2026-01-09T12:00:00Z", "Cremation history", "Two words about the release."],
  t2: [
    "Two Words Daily",
    "en",
    "2026-01-03T12:00:00Z",
    "Title of the day",
    "A release candidate, common again.",
  ],
};

/** The filler: many posts in Dutch, all of 2025, each holding `common`. */
const FILLER = 2_100;
/** Newer Dutch posts without `common` (from June 2025), which a walk of Dutch posts reads first. */
const EMPTY = 2_000;

/**
 * Feeds "Harvest Almanac <i>", a post each (Dutch, 2025-10-01 on, a day apart), which holds
 * `sheaf` where true: one `feed:` word naming many feeds.
 */
const ALMANAC_POSTS: readonly boolean[] = Array.from({ length: 30 }, (_, i) => i % 2 === 0 || i % 7 === 0);

/** [query, the guids it finds (any order)]. */
const table: ReadonlyArray<readonly [string, readonly string[]]> = [
  // Prefixes, analysed as words are: case, accents, NFKC; whole words without the star.
  ["postgre*", ["r1", "r2", "b1", "b2"]],
  ["postgres", ["r1", "b2"]],
  ["POSTGRÉ*", ["r1", "r2", "b1", "b2"]],
  ["ＰＯＳＴＧＲＥ*", ["r1", "r2", "b1", "b2"]],
  ["crem*", ["c1", "t1"]],
  ["crème*", ["c1"]],
  ["caf*", ["c1", "c2"]],
  ["ab*", []],
  ["rel*", ["r2", "t1", "t2"]],
  ["release not*", ["r2"]],
  ['"release not"*', ["r2"]],
  ["release no*", []],
  ["-postgre* rel*", ["t1", "t2"]],
  // Title only, against the same words in the body.
  ["release", ["r2", "t1", "t2"]],
  ["title:release", ["r2"]],
  ["title:the", ["r3", "t2"]],
  ['title:"borrow checker"', ["r3"]],
  ['title:"checker borrow"', []],
  ["title:datenbank", ["b2"]],
  ["title:post*", ["r1"]],
  ["-title:release release", ["t1", "t2"]],
  ["title:rust", []],
  ["rust", ["r1", "r2", "r3"]],
  // Feeds whose name holds the word or phrase.
  ["feed:rust", ["r1", "r2", "r3"]],
  ["feed:RUST release", ["r2"]],
  ['feed:"two words"', ["t1", "t2"]],
  ['feed:"words two"', []],
  ["feed:cafe", ["c1", "c2"]],
  ["feed:nothing", []],
  ["release -feed:rust", ["t1", "t2"]],
  ["feed:rust OR feed:berlin", ["r1", "r2", "r3", "b1", "b2"]],
  // Languages, one and several.
  ["lang:de", ["b1", "b2"]],
  ["lang:de,fr", ["b1", "b2", "c1", "c2"]],
  ["lang:FR café", ["c1", "c2"]],
  ["postgre* -lang:en", ["b1", "b2"]],
  ["lang:en OR lang:fr", ["r1", "r2", "r3", "c1", "c2", "t1", "t2"]],
  // UTC days, both ends inclusive.
  ["after:2026-01-07", ["r3", "c2", "b2", "t1"]],
  ["before:2026-01-05 after:2026-01-01", ["r1", "b1", "t2"]],
  ["after:2026-01-06 before:2026-01-06", ["r2", "c1"]],
  ["after:2026-01-08 before:2026-01-07", []],
  ["-after:2026-01-06 after:2026-01-01", ["r1", "b1", "t2"]],
  ["postgre* after:2026-01-06", ["r2", "b2"]],
  // OR binds tighter than AND: before AND (after OR feed), so c2 (after the 6th) is out.
  ["before:2026-01-06 after:2026-01-01 OR feed:cafe", ["r1", "r2", "c1", "b1", "t2"]],
  // Operators alone, operators in OR with words, exclusions alone.
  ["feed:berlin after:2026-01-05", ["b2"]],
  ["rust OR feed:berlin", ["r1", "r2", "r3", "b1", "b2"]],
  ["title:the OR lang:de", ["r3", "t2", "b1", "b2"]],
  ["feed:rust -title:the -lang:fr", ["r1", "r2"]],
  ["feed:rust -postgresql", ["r3"]],
  ["-feed:rust", []],
  // A common word (2,100 filler hits): the plan that walks the filtered posts.
  ["common feed:rust", ["r1", "r3"]],
  ["common lang:de", ["b2"]],
  ["common after:2026-01-01", ["r1", "r3", "c2", "b2", "t2"]],
  ["common -lang:nl before:2026-01-05", ["r1", "t2"]],
  ["common title:the", ["r3", "t2"]],
  ["comm* feed:cafe OR feed:berlin", ["c2", "b2"]],
  // A walk that reads its bound without a hit gives way to the index (PostgreSQL's plan).
  ["common feed:leeg", []],
  // A feed: that names many feeds (ALMANACS small feeds), with a word some of their posts hold.
  ["feed:almanac", ALMANAC_POSTS.map((_, i) => `a${i}`)],
  ["feed:almanac sheaf", ALMANAC_POSTS.flatMap((sheaf, i) => (sheaf ? [`a${i}`] : []))],
  // A language none of the feeds write, and the one they all write.
  ["feed:almanac lang:en", []],
  ["feed:almanac lang:en sheaf", []],
  ["feed:almanac lang:nl,en sheaf", ALMANAC_POSTS.flatMap((sheaf, i) => (sheaf ? [`a${i}`] : []))],
  [
    "feed:almanac sheaf after:2025-10-15",
    ALMANAC_POSTS.flatMap((sheaf, i) => (sheaf && i >= 14 ? [`a${i}`] : [])),
  ],
];

const faults: ReadonlyArray<readonly [string, RegExp]> = [
  [
    "rust after:yesterday",
    /^The search operator after:yesterday needs a UTC day written YYYY-MM-DD, such as after:2026-01-31\.$/,
  ],
  ["before:2026-13-01", /before:2026-13-01 needs a UTC day written YYYY-MM-DD/],
  ["lang:xyz", /lang:xyz names xyz, .* use codes such as lang:de or lang:de,fr \(known: en, .*de.*\)/],
  ["lang:1", /lang:1 needs language codes, such as lang:de or lang:de,fr\./],
];

/**
 * The corpus, with PostgreSQL's statistics taken (as autovacuum would), so that its plans follow
 * the words' real frequencies.
 */
async function seeded(store: Store, backend: TestBackend, location: string): Promise<Map<number, string>> {
  const guids = await seed(store);
  if (backend.name === "postgres") {
    const pool = new pg.Pool({ connectionString: location, max: 1 });
    try {
      await pool.query("ANALYZE posts");
    } finally {
      await pool.end();
    }
  }
  return guids;
}

async function seed(store: Store): Promise<Map<number, string>> {
  const feeds = new Map<string, number>();
  const byFeed = new Map<number, IncomingPost[]>();
  const languages = new Map<string, number>();
  for (const code of ["en", "fr", "de", "nl"])
    languages.set(code, (await store.ensureLanguage(code)).languageId);
  const feedId = async (name: string) => {
    if (!feeds.has(name)) {
      const { feedId: id } = await store.addFeed({
        feedUrl: `https://feeds.test/${feeds.size}`,
        feedName: name,
      });
      feeds.set(name, id);
    }
    return feeds.get(name)!;
  };
  const add = async (
    guid: string,
    feed: string,
    lang: string,
    date: number,
    title: string,
    content: string,
  ) => {
    const id = await feedId(feed);
    const list = byFeed.get(id) ?? [];
    list.push({
      guid,
      link: `https://posts.test/${guid}`,
      title,
      excerpt: "",
      content: `<p>${content}</p>`,
      publishedAt: date,
      updatedAt: null,
      seenAt: date,
      languageId: languages.get(lang)!,
    });
    byFeed.set(id, list);
  };
  for (const [guid, [feed, lang, date, title, content]] of Object.entries(posts)) {
    await add(guid, feed, lang, at(date), title, content);
  }
  // Before the filler: the Dutch posts of the tests below keep the newest ids.
  for (const [i, sheaf] of ALMANAC_POSTS.entries()) {
    await add(
      `a${i}`,
      `Harvest Almanac ${i}`,
      "nl",
      at("2025-10-01T12:00:00Z") + i * 86_400_000,
      `Almanak ${i}`,
      sheaf ? "een sheaf graan" : "een veld",
    );
  }
  for (let i = 0; i < FILLER; i++) {
    await add(
      `f${i}`,
      "Archief",
      "nl",
      at("2025-01-01T00:00:00Z") + i * 3_600_000,
      `Archief ${i}`,
      "common woorden",
    );
  }
  for (let i = 0; i < EMPTY; i++) {
    await add(`e${i}`, "Leeg", "nl", at("2025-06-01T00:00:00Z") + i * 3_600_000, `Leeg ${i}`, "leeg bericht");
  }
  for (const [id, list] of byFeed) await store.applyFeedUpdate(id, { fetchState: {}, posts: list });
  const guids = new Map<number, string>();
  for (const p of await store.recentPosts({ limit: 1000, offset: 0, languageIds: null })) {
    guids.set(p.postId, p.postLink.slice("https://posts.test/".length));
  }
  for (let offset = 1000; offset < FILLER + EMPTY + 100; offset += 1000) {
    for (const p of await store.recentPosts({ limit: 1000, offset, languageIds: null })) {
      guids.set(p.postId, p.postLink.slice("https://posts.test/".length));
    }
  }
  return guids;
}

const baseUrl = "http://localhost";

async function found(runner: OperationRunner, guids: Map<number, string>, terms: string): Promise<string[]> {
  const sorts = ["date", "relevance", "clicks"] as const;
  const results = await Promise.all(
    sorts.map((sortBy) =>
      runner.call(
        "search",
        { limit: 100, offset: 0, searchTerms: terms, sortBy, languageIds: "" },
        { baseUrl },
      ),
    ),
  );
  const sets = results.map((r) => r.map((p) => guids.get(p.postId as number)!).sort());
  assert.deepEqual(sets[1], sets[0], `${terms}: relevance vs date`);
  assert.deepEqual(sets[2], sets[0], `${terms}: clicks vs date`);
  for (const r of results[1]!) assert.ok((r.score as number) > 0, `${terms}: positive score`);
  const dates = results[0]!.map((r) => r.postDate as number);
  assert.deepEqual(
    dates,
    [...dates].sort((a, b) => b - a),
    `${terms}: newest first`,
  );
  const count = await runner.pageReads.countSearchMatches({ searchTerms: terms, languageIds: "" });
  assert.deepEqual(count, { count: sets[0]!.length, exact: true }, `${terms}: count`);
  return sets[0]!;
}

function suite(backend: TestBackend): void {
  describe(`search operators on ${backend.name}`, () => {
    after(() => backend.stop());

    it("finds exactly the expected posts for every query of the table, faults on bad values", async () => {
      const db = await backend.newDatabase();
      const store = await openStore(db.location);
      const runner = createOperationRunner({ store, parseSearch: parseSearchQuery });
      try {
        const guids = await seeded(store, backend, db.location);
        assert.equal(guids.size, Object.keys(posts).length + FILLER + EMPTY + ALMANAC_POSTS.length);
        const failures: string[] = [];
        for (const [terms, expected] of table) {
          const got = await found(runner, guids, terms);
          const want = [...expected].sort();
          if (JSON.stringify(got) !== JSON.stringify(want)) {
            failures.push(`${terms}: got [${got.join(", ")}], want [${want.join(", ")}]`);
          }
        }
        assert.deepEqual(failures, []);
        for (const [terms, message] of faults) {
          await assert.rejects(
            runner.call(
              "search",
              { limit: 10, offset: 0, searchTerms: terms, sortBy: "", languageIds: "" },
              { baseUrl },
            ),
            (error: unknown) =>
              error instanceof FeedServiceError &&
              error.code === "FEED_BAD_ARGUMENT" &&
              message.test(error.message),
            terms,
          );
        }
      } finally {
        await store.close();
        db.drop();
      }
    });

    it("takes operators in smart categories, beside the languageIds parameter, and pages", async () => {
      const db = await backend.newDatabase();
      const store = await openStore(db.location);
      const runner = createOperationRunner({ store, parseSearch: parseSearchQuery });
      try {
        const guids = await seeded(store, backend, db.location);
        const smart = await store.addSmartCategory({ name: "Databases", query: "title:release OR lang:de" });
        const listed = await runner.call(
          "getPostsBySmartCategory",
          {
            limit: 50,
            offset: 0,
            smartCategoryId: smart.smartCategoryId,
            smartCategoryKey: "",
            languageIds: "",
          },
          { baseUrl },
        );
        assert.deepEqual(
          listed.map((p) => guids.get(p.postId as number)),
          ["b2", "r2", "b1"],
          "newest first",
        );
        const de = (await store.languages()).find((l) => l.languageCode === "de")!.languageId;
        const inGerman = await runner.call(
          "search",
          { limit: 50, offset: 0, searchTerms: "postgre*", sortBy: "date", languageIds: String(de) },
          { baseUrl },
        );
        assert.deepEqual(
          inGerman.map((p) => guids.get(p.postId as number)),
          ["b2", "b1"],
        );
        const pages = [];
        for (let offset = 0; offset < 8; offset += 3) {
          const page = await runner.call(
            "search",
            { limit: 3, offset, searchTerms: "common after:2026-01-01", sortBy: "date", languageIds: "" },
            { baseUrl },
          );
          pages.push(...page.map((p) => guids.get(p.postId as number)));
        }
        assert.deepEqual(pages, ["c2", "r3", "b2", "r1", "t2"]);
        // Most clicked first: the clicked posts, then the others newest id first, batch by batch.
        const f5 = [...guids].find(([, guid]) => guid === "f5")![0];
        await store.insertClick(f5, "client-1", Date.UTC(2026, 0, 10));
        const byClicks = await runner.call(
          "search",
          { limit: 5, offset: 300, searchTerms: "common lang:nl", sortBy: "clicks", languageIds: "" },
          { baseUrl },
        );
        assert.deepEqual(
          byClicks.map((p) => guids.get(p.postId as number)),
          ["f1800", "f1799", "f1798", "f1797", "f1796"],
        );
        const top = await runner.call(
          "search",
          { limit: 2, offset: 0, searchTerms: "lang:nl", sortBy: "clicks", languageIds: "" },
          { baseUrl },
        );
        assert.deepEqual(
          top.map((p) => guids.get(p.postId as number)),
          ["f5", `e${EMPTY - 1}`],
        );
        // A walk past 2,000 newer Dutch posts without the word, in several batches.
        for (const sortBy of ["date", "relevance"]) {
          const deep = await runner.call(
            "search",
            { limit: 5, offset: 300, searchTerms: "common lang:nl", sortBy, languageIds: "" },
            { baseUrl },
          );
          if (sortBy === "date") {
            assert.deepEqual(
              deep.map((p) => guids.get(p.postId as number)),
              ["f1799", "f1798", "f1797", "f1796", "f1795"],
            );
          } else {
            assert.equal(deep.length, 5);
            for (const p of deep) assert.match(guids.get(p.postId as number)!, /^f\d+$/);
          }
        }
      } finally {
        await store.close();
        db.drop();
      }
    });
  });
}

suite(sqliteBackend);
suite(postgresBackend());
