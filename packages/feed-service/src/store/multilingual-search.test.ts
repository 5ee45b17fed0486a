/**
 * Search in every script (spec §4), on SQLite and on PostgreSQL: a small multilingual corpus and a
 * table of queries, each with the exact set of posts it must find, run on both backends, which
 * must therefore agree. Chinese and Japanese are written without spaces, so a word is found
 * wherever its characters occur in order inside a run, a single character included; Korean,
 * German, French and English are words; Thai is cut into dictionary words.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { parseSearchQuery } from "../search/parse-search-query.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";
import { openStore } from "./open-store.js";
import type { IncomingPost, Store } from "./store.js";

const T0 = Date.UTC(2026, 0, 10);

/** guid -> [title, content]; the feed of each post is given below. */
const posts: Record<string, [string, string]> = {
  zh1: ["北京的天气很好", "今天阳光明媚。"],
  zh2: ["上海数据库大会", "关于索引与查询优化的讨论。"],
  zh3: ["广州的天气", "下雨了。"],
  ja1: ["東京都の天気", "晴れのち曇り。"],
  ja2: ["iPhone発売日が決定", "新しいモデルは秋に登場します。"],
  ja3: ["データベースの設計入門", "正規化とインデックスを学ぶ。"],
  ja4: ["京都の旅", "お寺を巡る。"],
  ja5: ["東京、都庁へ行く", "バスで行きました。"],
  ja6: ["東京Towerの夜景", "ｶﾒﾗで撮影した写真。"],
  ko1: ["서울 날씨 정보", "오늘은 맑습니다."],
  ko2: ["한국어 검색 엔진", "형태소 분석 없이 찾기."],
  de1: ["Straßenbahn in München", "Die Linie fährt täglich."],
  de2: ["Größe und Gewicht", "Über die Maße."],
  fr1: ["Crème brûlée à Paris", "Une recette facile."],
  fr2: ["Le café de la gare", "Ouvert l'été."],
  en1: ["Tokyo travel guide", "Where to eat and what to see."],
  en2: ["Tokyoite stories", "Life in a big city."],
  th1: ["ภาษาไทยง่าย", "เรียนภาษาไทยทุกวัน"],
};

/** The feed each post belongs to; one feed name is Japanese, to search feed names too. */
const feedOf = (guid: string) => (guid.startsWith("ja") && guid !== "ja6" ? "日本ニュース" : "World Digest");

/** [query, the guids it finds (any order)]. */
const table: ReadonlyArray<readonly [string, readonly string[]]> = [
  // Chinese: words inside runs, single characters, OR, exclusion.
  ["北京", ["zh1"]],
  ["天气", ["zh1", "zh3"]],
  ["天气 -北京", ["zh3"]],
  ["北京 OR 上海", ["zh1", "zh2"]],
  ["数据库", ["zh2"]],
  ["查询优化", ["zh2"]],
  ["气", ["zh1", "zh3"]],
  ["海", ["zh2"]],
  // Japanese: kanji, kana, a word across kanji and kana, the example, a phrase.
  ["東京", ["ja1", "ja5", "ja6"]],
  ["天気", ["ja1"]],
  ["東京都", ["ja1"]],
  ["京都", ["ja1", "ja4"]],
  ["都の天気", ["ja1"]],
  ['"東京都 天気"', []],
  ["データ", ["ja3"]],
  ["ータベ", ["ja3"]],
  ["新しい", ["ja2"]],
  ["発売", ["ja2"]],
  ["京", ["ja1", "ja4", "ja5", "ja6", "zh1"]],
  ["の", ["ja1", "ja3", "ja4", "ja6"]],
  ["ニュース", ["ja1", "ja2", "ja3", "ja4", "ja5"]],
  ["ﾃﾞｰﾀ", ["ja3"]], // half-width katakana, NFKC
  ["カメラ", ["ja6"]],
  // Mixed queries and Latin next to CJK without a space.
  ["iPhone 発売", ["ja2"]],
  ["iphone発売", ["ja2"]],
  ["ｉＰｈｏｎｅ", ["ja2"]],
  ["iPhone 天気", []],
  ["東京tower", ["ja6"]],
  ["tower", ["ja6"]],
  // Never across a break between runs, nor into a Latin word beside a run.
  ["京t", []],
  ["phone", []],
  ["京都 -天気", ["ja4"]],
  // Korean.
  ["서울", ["ko1"]],
  ["날씨", ["ko1"]],
  ["서울 날씨", ["ko1"]],
  ["한국", ["ko2"]],
  ["국어", ["ko2"]],
  ["울", ["ko1"]],
  ["검색 OR 서울", ["ko1", "ko2"]],
  // German and French: accents and case folded, ß kept, whole words only.
  ["münchen", ["de1"]],
  ["MUNCHEN", ["de1"]],
  ["straßenbahn", ["de1"]],
  ["strasse", []],
  ["grosse", []],
  ["größe", ["de2"]],
  ["creme brulee", ["fr1"]],
  ['"crème brûlée"', ["fr1"]],
  ["CAFÉ", ["fr2"]],
  ["cafe -gare", []],
  ["ete", ["fr2"]],
  // English: whole words, never a prefix.
  ["tokyo", ["en1"]],
  ["tokyoite", ["en2"]],
  ["guide OR stories", ["en1", "en2"]],
  ["-tokyo", []],
  // Thai, cut into dictionary words.
  ["ภาษาไทย", ["th1"]],
  ["ไทย", ["th1"]],
  ["ง่าย", ["th1"]],
];

async function seed(store: Store): Promise<Map<number, string>> {
  const feeds = new Map<string, number>();
  for (const name of ["日本ニュース", "World Digest"]) {
    const { feedId } = await store.addFeed({ feedUrl: `https://feeds.test/${feeds.size}`, feedName: name });
    feeds.set(name, feedId);
  }
  const byFeed = new Map<number, IncomingPost[]>();
  let n = 0;
  for (const [guid, [title, content]] of Object.entries(posts)) {
    n++;
    const feedId = feeds.get(feedOf(guid))!;
    const list = byFeed.get(feedId) ?? [];
    list.push({
      guid,
      link: `https://posts.test/${guid}`,
      title,
      excerpt: "",
      content: `<p>${content}</p>`,
      publishedAt: T0 - n * 60_000,
      updatedAt: null,
      seenAt: T0,
      languageId: 1,
    });
    byFeed.set(feedId, list);
  }
  for (const [feedId, list] of byFeed) await store.applyFeedUpdate(feedId, { fetchState: {}, posts: list });
  const guids = new Map<number, string>();
  for (const p of await store.recentPosts({ limit: 100, offset: 0, languageIds: null })) {
    guids.set(p.postId, p.postLink.slice("https://posts.test/".length));
  }
  return guids;
}

async function found(store: Store, guids: Map<number, string>, terms: string): Promise<string[]> {
  const sorts = ["date", "relevance", "clicks"] as const;
  const results = await Promise.all(
    sorts.map((sort) =>
      store.searchPosts({ limit: 100, offset: 0, languageIds: null, query: parseSearchQuery(terms), sort }),
    ),
  );
  const sets = results.map((r) => r.map((p) => guids.get(p.postId)!).sort());
  // Every order finds the same posts.
  assert.deepEqual(sets[1], sets[0], `${terms}: relevance vs date`);
  assert.deepEqual(sets[2], sets[0], `${terms}: clicks vs date`);
  return sets[0]!;
}

function suite(backend: TestBackend): void {
  describe(`multilingual search on ${backend.name}`, () => {
    after(() => backend.stop());

    it("finds exactly the expected posts for every query of the table", async () => {
      const db = await backend.newDatabase();
      const store = await openStore(db.location);
      try {
        const guids = await seed(store);
        assert.equal(guids.size, Object.keys(posts).length);
        const failures: string[] = [];
        for (const [terms, expected] of table) {
          const got = await found(store, guids, terms);
          const want = [...expected].sort();
          if (JSON.stringify(got) !== JSON.stringify(want)) {
            failures.push(`${terms}: got [${got.join(", ")}], want [${want.join(", ")}]`);
          }
        }
        assert.deepEqual(failures, []);
      } finally {
        await store.close();
        db.drop();
      }
    });
  });
}

suite(sqliteBackend);
suite(postgresBackend());
