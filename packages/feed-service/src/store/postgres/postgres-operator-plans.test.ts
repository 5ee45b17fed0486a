/**
 * The PostgreSQL plans of the search operators (postgres-search-operators.ts and its neighbours)
 * must answer exactly what sorting every match would, whichever way they narrow: on 60,000 posts
 * of 40 feeds and 3 languages over 600 days, stored out of date order, each query of operators is
 * compared, in every order and at deep pages, with a brute-force reference (every match sorted),
 * and the statements the plan ran are checked to have taken the path the case is there for (a
 * tier of the newest days within `after:`/`before:`, a `feed:` of many feeds through
 * posts_by_feed, of a few inside GIN, languages inside GIN, the walk of the clicked posts, the
 * posts without clicks after them, every match when few).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type pg from "pg";
import { resolveSearchFilters } from "../../operations/search-filters.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { foldLanguageClauses } from "../../search/search-query.js";
import { withoutClickedLexemes, withoutClickedWords } from "../../test-support/clicked-words.js";
import { type OperatorCase, operatorSearchReference } from "../../test-support/postgres-search-reference.js";
import { openTestPostgresStore, type TestPostgresStore } from "../../test-support/test-postgres-server.js";
import type { SearchSort } from "../store.js";
import { rows, type Sql } from "./postgres-connection.js";
import { withoutImplied } from "./postgres-index-conjuncts.js";
import { OPERATOR_EXPRESSION, planOf } from "./postgres-operator-plan.js";
import { type Scope, ScopeDays } from "./postgres-operator-scope.js";
import { SEARCH_EXPRESSION } from "./postgres-search-facets.js";
import { searchWithOperators } from "./postgres-search-operators.js";
import type { PostgresStore } from "./postgres-store.js";

const POSTS = 60_000;
const DAYS = 600;
const DAY = 86_400_000;
/** The newest day's start. */
const T0 = Date.UTC(2026, 0, 10);
const iso = (daysAgo: number) => new Date(T0 - daysAgo * DAY).toISOString().slice(0, 10);

let db: TestPostgresStore;
let store: PostgresStore;
let pool: pg.Pool;

before(async () => {
  db = await openTestPostgresStore("operator_plans");
  ({ store, pool } = db);
  const fr = (await store.ensureLanguage("fr")).languageId;
  const de = (await store.ensureLanguage("de")).languageId;
  // 36 feeds named "Alpha n" (more than GIN takes as facets), 3 "Beta n", one "Gamma".
  const feeds: number[] = [];
  for (let i = 0; i < 40; i++) {
    const name = i < 36 ? `Alpha ${i}` : i < 39 ? `Beta ${i}` : "Gamma";
    feeds.push((await store.addFeed({ feedUrl: `https://f.test/${i}`, feedName: name })).feedId);
  }
  // Post i: feed i % 40; French when i % 5 = 0, German when i % 5 = 1; its day scrambled over the
  // 600 days (ids say nothing of dates); "the" in 40% (in the title, weight A, in one in seven),
  // "work" or "world" in two thirds, w0..w96 and k0..k12 spread, r0..r1499 rare, "olden" in half
  // the posts older than 400 days only; one post in ten clicked 0 to 49 times, of which one in
  // eleven has "then" in its title and no "the".
  await pool.query(
    `INSERT INTO posts (feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, clicks, search_vector)
      SELECT ($1::int[])[i % 40 + 1], 'g' || i, 'https://x.test/' || i, 'Post ' || i, '', '', 0,
        $4::bigint - ((i * 7919) % ${DAYS})::bigint * ${DAY} + (i % 86)::bigint * 1000000,
        CASE i % 5 WHEN 0 THEN $2::int WHEN 1 THEN $3::int ELSE 1 END,
        CASE WHEN i % 10 = 0 THEN (i * 7919) % 50 ELSE 0 END,
        ((CASE WHEN i % 10 < 4 AND i % 110 <> 50 THEN (CASE WHEN i % 7 = 0 THEN 'the:1A ' ELSE 'the:1 ' END) ELSE '' END)
          || (CASE i % 3 WHEN 0 THEN 'work:2 ' WHEN 1 THEN 'world:2 ' ELSE '' END)
          || (CASE WHEN (i * 7919) % ${DAYS} > 400 AND i % 2 = 0 THEN 'olden:6 ' ELSE '' END)
          || (CASE WHEN i % 110 = 50 THEN 'then:7A ' ELSE '' END)
          || 'w' || (i % 97) || ':3 k' || (i % 13) || ':4 r' || (i % 1500) || ':5')::tsvector
      FROM generate_series(1, ${POSTS}) i`,
    [feeds, fr, de, T0],
  );
  await pool.query("UPDATE feeds f SET post_count = (SELECT count(*) FROM posts p WHERE p.feed_id = f.id)");
  // The walks are under test here, not the most clicked posts' own words (migration 42).
  await withoutClickedWords(pool);
  await pool.query("ANALYZE");
});
after(() => db?.close());

/** Every statement a search ran, with its parameters. */
function recording(): { sql: Sql; ran: Array<{ text: string; params: unknown[] }> } {
  const ran: Array<{ text: string; params: unknown[] }> = [];
  const sql: Sql = {
    query: ((config: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
      const text = typeof config === "string" ? config : config.text;
      ran.push({ text, params: (typeof config === "string" ? values : config.values) ?? [] });
      return pool.query(config as string, values);
    }) as Sql["query"],
  };
  return { sql, ran };
}

/**
 * The tsqueries the search handed the operators' index (or `expression`'s: the word plans'),
 * EXPLAINs of the estimates left out.
 */
function indexQueries(
  ran: ReadonlyArray<{ text: string; params: unknown[] }>,
  expression = OPERATOR_EXPRESSION,
): string[] {
  return ran.flatMap(({ text, params }) => {
    const at = text.indexOf(`${expression} @@ $`);
    if (at < 0 || text.startsWith("EXPLAIN")) return [];
    const n = Number(/^\$(\d+)/.exec(text.slice(at + expression.length + 4))![1]);
    return [String(params[n - 1])];
  });
}

type Case = OperatorCase;

/** The page as sorting every match gives it (relevance: the 10,000 newest matches ranked). */
function reference(
  c: Case,
  sort: SearchSort,
  page: { offset: number; limit: number },
): Promise<Array<{ id: number; score?: number }>> {
  return operatorSearchReference(pool, c, sort, page);
}

/** Searches `c` through the operator plans, checks the page against the reference, returns what ran. */
async function assertExact(
  c: Case,
  sort: SearchSort,
  page: { offset: number; limit: number },
): Promise<Array<{ text: string; params: unknown[] }>> {
  const { sql, ran } = recording();
  const folded = foldLanguageClauses(await resolveSearchFilters(store, parseSearchQuery(c.terms)), null);
  const got = await searchWithOperators(sql, { ...page, ...folded, sort });
  const want = await reference(c, sort, page);
  const label = `${c.terms} by ${sort} at ${page.offset}+${page.limit}`;
  assert.deepEqual(
    got.map((r) => r.postId),
    want.map((r) => r.id),
    label,
  );
  if (sort === "relevance" && want[0]?.score !== undefined) {
    assert.deepEqual(
      got.map((r) => r.score),
      want.map((r) => r.score),
      `scores of ${label}`,
    );
  }
  return ran;
}

const alpha = "f.name LIKE 'Alpha %'";
const beta = "f.name LIKE 'Beta %'";
const inLanguage = (code: string) => `p.language_id = (SELECT id FROM languages WHERE code = '${code}')`;
const since = (daysAgo: number) => `p.post_date >= ${T0 - daysAgo * DAY}`;
const until = (daysAgo: number) => `p.post_date < ${T0 - (daysAgo - 1) * DAY}`;

const CASES: Case[] = [
  { terms: "wor*", where: "TRUE" },
  { terms: "title:the", where: "TRUE" },
  { terms: "title:the w5", where: "TRUE" },
  { terms: "feed:alpha the", where: alpha },
  { terms: "feed:beta wor*", where: beta },
  { terms: "feed:beta k3 -title:the", where: beta },
  { terms: `after:${iso(100)} the`, where: since(100) },
  { terms: `before:${iso(300)} wor*`, where: until(300) },
  { terms: `after:${iso(450)} before:${iso(200)} k3`, where: `${since(450)} AND ${until(200)}` },
  { terms: "the* lang:fr", where: "p.language_id = (SELECT id FROM languages WHERE code = 'fr')" },
  { terms: "olden*", where: "TRUE" },
  { terms: "r77 feed:alpha", where: alpha },
  { terms: "the -feed:beta", where: `NOT ${beta}` },
  { terms: `the* title:the feed:alpha after:${iso(500)} wor*`, where: `${alpha} AND ${since(500)}` },
  { terms: "feed:alpha", where: alpha },
  { terms: "feed:gamma", where: "f.name = 'Gamma'" },
  { terms: `after:${iso(30)}`, where: since(30) },
  { terms: `feed:beta before:${iso(100)}`, where: `${beta} AND ${until(100)}` },
  { terms: "lang:de", where: "p.language_id = (SELECT id FROM languages WHERE code = 'de')" },
  { terms: `after:${iso(590)}`, where: since(590) },
  { terms: "wor* the", where: "TRUE" },
  { terms: "title:the* k3", where: "TRUE" },
  { terms: `"the work" after:${iso(300)}`, where: since(300) },
  { terms: `wor* -"the work"`, where: "TRUE" },
  { terms: `"work the" feed:beta`, where: beta },
  { terms: `title:the "the work"`, where: "TRUE" },
  { terms: `wor* "the work" -title:the`, where: "TRUE" },
  // Feeds and languages both; feeds within after: and before:; a listing of feeds before a day.
  {
    terms: "feed:alpha lang:de wor*",
    where: `${alpha} AND p.language_id = (SELECT id FROM languages WHERE code = 'de')`,
  },
  {
    terms: `feed:alpha after:${iso(450)} before:${iso(120)} the`,
    where: `${alpha} AND ${since(450)} AND ${until(120)}`,
  },
  { terms: `feed:alpha before:${iso(100)}`, where: `${alpha} AND ${until(100)}` },
  // Words a `title:` word implies (30, 31, 33), and ones it does not (32: "then" in a title; 34).
  { terms: "title:the the", where: "TRUE" },
  { terms: "the* title:the feed:alpha the", where: alpha },
  { terms: "title:the* the", where: "TRUE" },
  { terms: "title:the* the* w5", where: "TRUE" },
  { terms: "title:the wor*", where: "TRUE" },
  // Conjuncts another implies, left out of GIN's query (postgres-index-conjuncts.ts).
  { terms: "the* the w5", where: "TRUE" },
  { terms: "title:the the w5", where: "TRUE" },
  { terms: `the* title:the after:${iso(500)} the`, where: since(500) },
  { terms: "then the* k3", where: "TRUE" },
  { terms: "title:then the* the", where: "TRUE" },
  { terms: "the* the OR k3", where: "TRUE" },
  // Feeds and a language only some of them write (7 of the 36 "Alpha" feeds write German), and
  // one none of them writes (no "Beta" feed writes French): the latter read no post.
  { terms: "feed:alpha lang:de", where: `${alpha} AND ${inLanguage("de")}` },
  { terms: "feed:alpha lang:de the", where: `${alpha} AND ${inLanguage("de")}` },
  { terms: "feed:beta lang:fr", where: `${beta} AND ${inLanguage("fr")}` },
  { terms: "feed:beta lang:fr wor*", where: `${beta} AND ${inLanguage("fr")}` },
  { terms: "feed:gamma lang:en", where: `f.name = 'Gamma' AND ${inLanguage("en")}` },
];

const PAGES: Record<SearchSort, Array<{ offset: number; limit: number }>> = {
  relevance: [
    { offset: 0, limit: 20 },
    { offset: 0, limit: 1000 },
    { offset: 9990, limit: 20 },
  ],
  date: [
    { offset: 0, limit: 20 },
    { offset: 5000, limit: 20 },
    { offset: 0, limit: 1000 },
  ],
  clicks: [
    { offset: 0, limit: 20 },
    { offset: 0, limit: 1000 },
    { offset: 5990, limit: 20 },
  ],
};

describe("postgres search operator plans", () => {
  for (const sort of ["relevance", "date", "clicks"] as const) {
    it(`answers every ${sort} page of every operator case exactly as sorting every match would`, async () => {
      for (const c of CASES) {
        for (const page of PAGES[sort]) await assertExact(c, sort, page);
      }
    });
  }

  it("narrows by the scope inside GIN or through posts_by_feed, and tiers within the date bounds", async () => {
    // A feed: of many feeds: their posts_by_feed ranges ANDed with GIN's bitmap, no facet.
    const many = await assertExact(CASES[3]!, "date", { offset: 0, limit: 20 });
    assert.ok(
      many.some((r) => /p\.feed_id = ANY\(\$\d+::int\[\]\)/.test(r.text)),
      "posts_by_feed condition",
    );
    assert.ok(
      indexQueries(many).every((q) => !q.includes("' feed ")),
      "no feed facets",
    );
    // A few feeds: facets inside GIN.
    const few = indexQueries(await assertExact(CASES[4]!, "date", { offset: 0, limit: 20 }));
    assert.ok(
      few.length > 0 && few.every((q) => /' feed \d+' \| ' feed \d+' \| ' feed \d+'/.test(q)),
      few.join(),
    );
    // Languages inside GIN.
    const fr = indexQueries(await assertExact(CASES[9]!, "date", { offset: 0, limit: 20 }));
    assert.ok(fr.length > 0 && fr.every((q) => q.includes("' lang ")), fr.join());
    // before: a tier of the newest days before the bound, found through the months' counts.
    const old = await assertExact(CASES[7]!, "date", { offset: 5000, limit: 20 });
    assert.ok(
      old.some((r) => r.text.includes("FROM scope_months")),
      "months counted",
    );
    const [tier] = indexQueries(old);
    const size: Record<string, number> = { day: 1, wk: 7, mo: 28, yr: 364 };
    const blocks = [...tier!.matchAll(/' (day|wk|mo|yr) (\d+)'/g)].map((m) => ({
      first: Number(m[2]) * size[m[1]!]!,
      last: (Number(m[2]) + 1) * size[m[1]!]! - 1,
    }));
    const lastDay = Math.floor((T0 - 300 * DAY) / DAY);
    assert.equal(Math.max(...blocks.map((b) => b.last)), lastDay, tier);
    assert.ok(Math.min(...blocks.map((b) => b.first)) > lastDay - 200, `a tier, not every day: ${tier}`);
    // A tier of the newest days for relevance, one reading when it holds the 10,000 newest.
    const ranked = indexQueries(await assertExact(CASES[0]!, "relevance", { offset: 0, limit: 20 }));
    assert.equal(ranked.length, 1);
    assert.match(ranked[0]!, /' (day|wk|mo|yr) \d+'/);
  });

  it("reads no post for feeds that write none of the search's languages", async () => {
    const byTerms = (terms: string) => CASES.find((c) => c.terms === terms)!;
    // (Feeds of which some write the language, "feed:alpha lang:de", are among the cases above.)
    for (const sort of ["relevance", "date", "clicks"] as const) {
      for (const terms of ["feed:beta lang:fr", "feed:beta lang:fr wor*"]) {
        const ran = await assertExact(byTerms(terms), sort, { offset: 0, limit: 20 });
        assert.deepEqual(
          ran.map((r) => r.text.includes("FROM posts p WHERE p.feed_id = f AND p.language_id")),
          [true],
          `${terms} by ${sort}: the feeds' probe alone`,
        );
      }
    }
  });

  it("lists one feed's or one language's posts by `=`, in their index's order", async () => {
    const byTerms = (terms: string) => CASES.find((c) => c.terms === terms)!;
    for (const [terms, keys] of [
      ["feed:gamma", ["feed_id"]],
      ["lang:de", ["language_id"]],
      ["feed:gamma lang:en", ["feed_id", "language_id"]],
    ] as const) {
      for (const page of [
        { offset: 0, limit: 1000 },
        { offset: 500, limit: 20 },
      ]) {
        const ran = await assertExact(byTerms(terms), "date", page);
        const listed = ran.find((r) => r.text.includes("WITH newest AS MATERIALIZED"))!;
        for (const key of keys) assert.match(listed.text, new RegExp(`p\\.${key} = \\$\\d+::int `), terms);
      }
    }
  });

  it("leaves GIN to settle `title:` words it holds as title lexemes, and checks the rest on the row", async () => {
    const checked = (ran: Array<{ text: string }>) => ran.some((r) => r.text.includes("p.rank_vector @@"));
    for (const sort of ["relevance", "date"] as const) {
      // ` ttl the` is in the index exactly when `the` is in the title.
      const settled = await assertExact(CASES[1]!, sort, { offset: 0, limit: 20 });
      assert.ok(indexQueries(settled).every((q) => q.includes("' ttl the'")) && !checked(settled));
      // A `title:` prefix loses its weight in the index: checked on the title's vector.
      assert.ok(checked(await assertExact(CASES[21]!, sort, { offset: 0, limit: 20 })));
    }
  });

  it("leaves out of GIN's query the words and prefixes another word of the query implies", async () => {
    for (const sort of ["relevance", "date"] as const) {
      const pfx = indexQueries(await assertExact(CASES[35]!, sort, { offset: 0, limit: 20 }));
      assert.ok(pfx.length > 0 && pfx.every((q) => !q.includes("pfx") && q.includes("'the'")), sort);
      const titled = indexQueries(await assertExact(CASES[36]!, sort, { offset: 0, limit: 20 }));
      assert.ok(
        titled.length > 0 && titled.every((q) => q.includes("' ttl the'") && !q.includes("'the'")),
        sort,
      );
      const all = indexQueries(await assertExact(CASES[37]!, sort, { offset: 0, limit: 20 }));
      assert.ok(all.length > 0 && all.every((q) => q.includes("' ttl the'") && !/pfx|'the'/.test(q)), sort);
    }
    // A prefix the word does not imply stays; an OR keeps its terms.
    assert.equal(withoutImplied("' pfx the' & 'the' & 'w5'"), "'the' & 'w5'");
    assert.equal(withoutImplied("' pfx the' & ' ttl the' & 'the'"), "' ttl the'");
    assert.equal(withoutImplied("'then' & ' pfx the' & 'k3'"), "'then' & 'k3'");
    assert.equal(withoutImplied("' ttl then' & ' pfx the' & 'the'"), "' ttl then' & 'the'");
    assert.equal(withoutImplied("(' pfx wor' & 'work':*) & 'the'"), "(' pfx wor' & 'work':*) & 'the'");
    assert.equal(withoutImplied("' pfx the' & ('the' | 'k3')"), "' pfx the' & ('the' | 'k3')");
    assert.equal(withoutImplied("' pfx the' & 'the' & !'k3'"), "' pfx the' & 'the' & !'k3'");
    assert.equal(withoutImplied("'the' & 'the'"), "'the'");
  });

  it("hands GIN no phrase (it would recheck each candidate against the indexed expression)", async () => {
    for (const c of [CASES[22]!, CASES[23]!, CASES[24]!, CASES[25]!, CASES[26]!]) {
      for (const sort of ["relevance", "date", "clicks"] as const) {
        const ran = await assertExact(c, sort, { offset: 0, limit: 20 });
        const queries = [...indexQueries(ran), ...indexQueries(ran, SEARCH_EXPRESSION)];
        assert.ok(queries.length > 0 && queries.every((q) => !q.includes("<")), queries.join(" / "));
      }
    }
    // Phrases without `word*`: their pairs in the word plans' index.
    for (const c of [CASES[22]!, CASES[25]!]) {
      const pairs = indexQueries(await assertExact(c, "date", { offset: 0, limit: 20 }), SEARCH_EXPRESSION);
      assert.ok(pairs.length > 0 && pairs.every((q) => q.includes("'the work'")), pairs.join(" / "));
    }
  });

  it("sizes the next tier on the share of matches a tier that fell short measured", async () => {
    // "olden" is in no post of the newest 400 days: the first tier finds none of it.
    const read = indexQueries(await assertExact(CASES[10]!, "date", { offset: 0, limit: 20 }));
    assert.ok(read.length >= 2, read.join(" / "));
    assert.match(read[0]!, /' (day|wk|mo) \d+'/);
  });

  it("walks the clicked posts in order, then the posts without clicks, or reads every match when few", async () => {
    const walked = (ran: Array<{ text: string }>) => ran.some((r) => r.text.includes("FROM clicked_posts k"));
    const unclicked = (ran: Array<{ text: string }>) => ran.some((r) => r.text.includes("p.clicks = 0"));
    // The page among the most clicked posts: the walk alone.
    const top = await assertExact(CASES[0]!, "clicks", { offset: 0, limit: 20 });
    assert.ok(walked(top) && !unclicked(top));
    assert.ok(!top.some((r) => r.text.includes("WITH m AS MATERIALIZED")), "no reading of every match");
    // Past the clicked posts (one in ten, some with none): the posts without clicks, newest id first.
    const past = await assertExact(CASES[19]!, "clicks", { offset: 5990, limit: 20 });
    assert.ok(walked(past) && unclicked(past));
    // Words all `title:`: settled on the title's vector, no post's whole vector read.
    const titled = await assertExact(CASES[1]!, "clicks", { offset: 0, limit: 20 });
    assert.ok(walked(titled) && !titled.some((r) => r.text.includes("p.search_vector @@")));
    // A rare word in the feeds: every match read and sorted, no walk.
    const rare = await assertExact(CASES[11]!, "clicks", { offset: 0, limit: 20 });
    assert.ok(!walked(rare));
  });

  it("walks `title:the the` on the title's vector alone: the title word implies the word", async () => {
    // From here on the walk under test: every clicked post's lexemes (migration 67) would answer
    // some of these pages instead (postgres-clicked-lexemes.test.ts), as they did the exact pages above.
    await withoutClickedLexemes(pool);
    const vector = (ran: Array<{ text: string }>) => ran.some((r) => r.text.includes("p.search_vector @@"));
    const walked = (ran: Array<{ text: string }>) => ran.some((r) => r.text.includes("FROM clicked_posts k"));
    for (const page of PAGES.clicks) {
      const first = page.offset === 0 && page.limit === 20;
      for (const c of [CASES[30]!, CASES[31]!]) {
        const ran = await assertExact(c, "clicks", page);
        assert.ok(!vector(ran) && (walked(ran) || !first), `${c.terms} at ${page.offset}+${page.limit}`);
      }
      // `title:the*` (then, the) does not imply `the`: each walked post's vector is read.
      const prefixed = await assertExact(CASES[32]!, "clicks", page);
      if (first) assert.ok(walked(prefixed) && vector(prefixed), "title:the* the");
      await assertExact(CASES[33]!, "clicks", page);
      await assertExact(CASES[34]!, "clicks", page);
    }
    // What the plan takes as settled by the title's vector alone.
    const settled = (terms: string) => planOf(parseSearchQuery(terms), null).settled;
    for (const terms of ["title:the the", "title:the the*", "title:the* the*", "the title:the"]) {
      assert.ok(settled(terms), terms);
    }
    for (const terms of [
      "title:the* the",
      "title:the wor*",
      "title:the w5",
      "title:the the k3",
      "title:the OR k3 the",
      "title:the -the",
    ]) {
      assert.ok(!settled(terms), terms);
    }
  });

  it("drops the walked posts that fail `title:` words or dates on their clicked_posts row, before probing posts", async () => {
    // The walk's statements that probe `posts`, and the tsqueries they check on the clicked_posts row.
    const probes = (ran: Array<{ text: string; params: unknown[] }>) =>
      ran.filter((r) => r.text.includes("FROM clicked_posts k") && r.text.includes("WHERE p.id = k.id"));
    const onRow = (r: { text: string; params: unknown[] }) =>
      [...r.text.matchAll(/k\.rank_vector @@ \$(\d+)::tsquery/g)].map((m) =>
        String(r.params[Number(m[1]) - 1]),
      );
    let walked = 0;
    for (const [c, title] of [
      [CASES[2]!, "'the':A"],
      [CASES[21]!, "'the':*A"],
      [CASES[34]!, "'the':A"],
    ] as const) {
      for (const page of PAGES.clicks) {
        const probed = probes(await assertExact(c, "clicks", page));
        walked += probed.length;
        assert.ok(
          probed.every((r) => onRow(r).includes(title)),
          `${c.terms} at ${page.offset}+${page.limit}`,
        );
      }
    }
    assert.ok(walked > 0);
    const dated = probes(await assertExact(CASES[6]!, "clicks", { offset: 0, limit: 20 }));
    assert.ok(dated.length > 0 && dated.every((r) => /k\.post_date \+ 0 >= \$\d+::bigint/.test(r.text)));
    // A clause mixing `title:` and other words is checked on `search_vector`: on the probe alone.
    const mixed = probes(
      await assertExact({ terms: "title:the OR k3 wor*", where: "TRUE" }, "clicks", { offset: 0, limit: 20 }),
    );
    assert.ok(mixed.length > 0 && mixed.every((r) => !r.text.includes("k.search_vector")));
  });

  it("takes a walked post whose title vector matches the words without probing posts, unless words are excluded", async () => {
    const probes = (ran: Array<{ text: string; params: unknown[] }>) =>
      ran.filter((r) => r.text.includes("FROM clicked_posts k") && r.text.includes("WHERE p.id = k.id"));
    const titleFirst = (r: { text: string; params: unknown[] }) => {
      const m = /\(k\.rank_vector @@ \$(\d+)::tsquery OR EXISTS/.exec(r.text);
      return m === null ? null : String(r.params[Number(m[1]) - 1]);
    };
    for (const page of PAGES.clicks) {
      for (const c of [CASES[20]!, CASES[34]!, CASES[12]!, CASES[6]!]) {
        const probed = probes(await assertExact(c, "clicks", page));
        assert.ok(
          probed.every((r) => titleFirst(r) !== null && !titleFirst(r)!.includes("!")),
          `${c.terms} at ${page.offset}+${page.limit}`,
        );
      }
      // Excluded words: a title vector without them says nothing of the post's other words.
      for (const c of [CASES[5]!, { terms: "wor* -k3", where: "TRUE" }]) {
        const probed = probes(await assertExact(c, "clicks", page));
        assert.ok(
          probed.every((r) => titleFirst(r) === null),
          `${c.terms} at ${page.offset}+${page.limit}`,
        );
      }
    }
    const top = probes(await assertExact(CASES[20]!, "clicks", { offset: 0, limit: 20 }));
    assert.ok(
      top.length > 0 && titleFirst(top[0]!) === "'wor':* & 'the'",
      String(top[0] && titleFirst(top[0])),
    );
  });

  it("counts the newest days of a scope that hold a number of posts as counting every post does", async () => {
    const fr = (await store.languages()).find((l) => l.languageCode === "fr")!.languageId;
    const newest = Math.floor(T0 / DAY);
    const scopes: Scope[] = [
      { languageIds: null, feedIds: null, fromDay: null, lastDay: null },
      { languageIds: [fr], feedIds: null, fromDay: null, lastDay: null },
      { languageIds: null, feedIds: null, fromDay: newest - 450, lastDay: newest - 200 },
      { languageIds: [fr], feedIds: null, fromDay: null, lastDay: newest - 333 },
    ];
    for (const scope of scopes) {
      const counted = new ScopeDays(pool, scope, { newest, oldest: newest - DAYS + 1 });
      const perDay = await rows<{ day: number; n: number }>(
        pool,
        `SELECT post_day(post_date) AS day, count(*)::int AS n FROM posts
          WHERE ($1::int[] IS NULL OR language_id = ANY($1::int[]))
            AND post_day(post_date) BETWEEN coalesce($2, -1e9) AND coalesce($3, 1e9)
          GROUP BY 1 ORDER BY 1 DESC`,
        [scope.languageIds, scope.fromDay, scope.lastDay],
      );
      // Each target twice: a later search reads what an earlier one counted again.
      for (const target of [1, 500, 2_000, 20_000, 50_000, 1_000_000, 2_000, 20_000]) {
        let posts = 0;
        const want = perDay.find((d) => {
          posts += d.n;
          return posts >= target;
        });
        assert.deepEqual(
          await counted.holding(target),
          want ? { first: want.day, posts } : null,
          `${JSON.stringify(scope)}: ${target}`,
        );
      }
    }
  });

  it("answers nothing for a scope that holds no post, without reading posts", async () => {
    for (const terms of ["the feed:nothing", `after:${iso(10)} before:${iso(20)} the`]) {
      const { sql, ran } = recording();
      const folded = foldLanguageClauses(await resolveSearchFilters(store, parseSearchQuery(terms)), null);
      const got = await searchWithOperators(sql, { offset: 0, limit: 20, ...folded, sort: "date" });
      assert.deepEqual(got, [], terms);
      assert.equal(ran.length, 0, terms);
    }
  });
});
