/**
 * The pages over real HTTP on a real SQLite store (the fixture corpus of the SOAP tests plus a
 * hostile feed): what each page lists, paging and filters, the error pages, the headers, the
 * assets, OpenSearch. The browser tests (browser/) check what a person sees and that nothing runs.
 */
import assert from "node:assert/strict";
import { get as httpGet } from "node:http";
import { after, before, test } from "node:test";
import { gunzipSync } from "node:zlib";
import { type HostileFeed, seedHostileFeed } from "../test-support/hostile-feed.js";
import {
  type Fixture,
  fixtureNow,
  type RunningService,
  seedFixture,
  startTestService,
} from "../test-support/service-fixture.js";

let service: RunningService;
let fx: Fixture;
let hostile: HostileFeed;

before(async () => {
  service = await startTestService();
  fx = await seedFixture(service.store);
  hostile = await seedHostileFeed(service.store, fixtureNow - 48 * 3_600_000);
});
after(() => service.close());

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(service.baseUrl + path, { headers, redirect: "manual" });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The post ids a page lists, in order (every post link goes through /click). */
function listedPosts(page: string): number[] {
  return [...page.matchAll(/<li class="post" id="post-(\d+)">\n<h[23]><a href="\/click\/(\d+)"/g)].map(
    (m) => {
      assert.equal(m[1], m[2]);
      return Number(m[1]);
    },
  );
}

test("/ lists the newest posts first, each linked through /click, with feed autodiscovery", async () => {
  const page = await get("/");
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
  const { a1, a2, a3, b1, b2, c1, c2, d1 } = fx.posts;
  const ours = listedPosts(page.text).filter((id) => !hostile.postIds.includes(id));
  assert.deepEqual(ours, [b2, a1, b1, d1, c2, a2, c1, a3]);
  assert.match(page.text, /<title>Recent posts · Feed aggregator<\/title>/);
  for (const ext of ["rss", "atom", "json"]) {
    assert.match(
      page.text,
      new RegExp(`<link rel="alternate" type="[^"]+" title="[^"]+" href="/feeds/recent\\.${ext}">`),
    );
  }
  assert.match(page.text, /<link rel="search" type="application\/opensearchdescription\+xml"/);
});

test("the language filter reads ?lang=1,2 and the form's ?lang=1&lang=2 alike", async () => {
  const { fr, de } = fx.languages;
  const { b1, b2, c1, c2 } = fx.posts;
  const commas = await get(`/?lang=${fr},${de}`);
  const repeated = await get(`/?lang=${fr}&lang=${de}`);
  assert.deepEqual(listedPosts(commas.text), [b2, b1, c2, c1]);
  assert.deepEqual(listedPosts(repeated.text), listedPosts(commas.text));
  assert.match(commas.text, new RegExp(`<input type="checkbox" name="lang" value="${fr}" checked>`));
  assert.match(commas.text, new RegExp(`href="/feeds/recent\\.rss\\?languageIds=${fr},${de}"`));
});

test("paging: 25 posts a page, newer and older links that keep the filter", async () => {
  const feed = await service.store.addFeed({
    feedUrl: "https://many.example.org/feed",
    feedName: "Many",
    languageId: 1,
  });
  const posts = Array.from({ length: 30 }, (_, i) => ({
    guid: `many-${i}`,
    link: `https://many.example.org/${i}`,
    title: `Many ${i}`,
    excerpt: "",
    content: "",
    publishedAt: fixtureNow - 100 * 86_400_000 - i * 60_000,
    updatedAt: null,
    seenAt: fixtureNow,
    languageId: 1,
  }));
  await service.store.applyFeedUpdate(feed.feedId, { posts, fetchState: {} });
  const first = await get(`/feeds/${feed.feedId}`);
  assert.equal(listedPosts(first.text).length, 25);
  assert.match(first.text, new RegExp(`<a rel="next" href="/feeds/${feed.feedId}\\?page=2">Older →</a>`));
  assert.doesNotMatch(first.text, /rel="prev"/);
  const second = await get(`/feeds/${feed.feedId}?page=2`);
  assert.equal(listedPosts(second.text).length, 5);
  assert.match(second.text, new RegExp(`<a rel="prev" href="/feeds/${feed.feedId}">← Newer</a>`));
  assert.doesNotMatch(second.text, /rel="next"/);
  const filtered = await get("/?lang=1");
  assert.match(filtered.text, /<a rel="next" href="\/\?lang=1&amp;page=2">/);
  await service.store.removeFeed(feed.feedId);
});

test("category, feed, smart category, popular, feeds, categories and languages pages show their data", async () => {
  const apple = await get(`/categories/${fx.categories.apple}`);
  const { a1, a2, a3, b1, b2 } = fx.posts;
  assert.deepEqual(listedPosts(apple.text), [b2, a1, b1, a2, a3]);
  assert.match(apple.text, /<h1>Apple<\/h1>/);
  assert.match(apple.text, new RegExp(`href="/feeds/categories/${fx.categories.apple}\\.atom"`));
  assert.match(apple.text, new RegExp(`<a href="/feeds/${fx.feeds.airNotes}">air notes</a>`));

  const flex = await get(`/feeds/${fx.feeds.flexWeekly}`);
  assert.deepEqual(listedPosts(flex.text), [a1, a2, a3]);
  assert.match(
    flex.text,
    /<link rel="alternate" type="application\/rss\+xml" title="Flex Weekly \(source feed\)" href="https:\/\/flex\.example\.org\/feed">/,
  );

  for (const path of [`/smart-categories/${fx.smart.id}`, `/smart-categories/${fx.smart.key}`]) {
    const smart = await get(path);
    assert.equal(smart.status, 200, path);
    assert.deepEqual(listedPosts(smart.text), [a1, a2], path);
    assert.match(smart.text, new RegExp(`href="/feeds/smart-categories/${fx.smart.key}\\.json"`));
  }

  const popular = await get("/popular?days=30");
  // Most clicks in the window first, ties newest first (a2 is newer than c1).
  assert.deepEqual(listedPosts(popular.text), [a1, fx.posts.b1, a2, fx.posts.c1]);
  assert.match(popular.text, /<strong>3 clicks<\/strong> in this period/);
  assert.match(popular.text, /<a href="\/popular\?days=30" aria-current="true">This month<\/a>/);

  const feeds = await get("/feeds");
  const names = [...feeds.text.matchAll(/<th scope="row"><a href="\/feeds\/\d+">([^<]*)<\/a><\/th>/g)].map(
    (m) => m[1],
  );
  assert.deepEqual(
    names.filter((n) => !n?.includes("Hostile")),
    ["air notes", "Berlin Blog", "Flex Weekly", "Zeta Uncategorised"],
  );

  const categories = await get("/categories");
  assert.match(
    categories.text,
    new RegExp(`<a href="/categories/${fx.categories.apple}">Apple</a> <span class="meta">2 feeds</span>`),
  );

  const languages = await get("/languages");
  const bars = [...languages.text.matchAll(/data-language-id="(\d+)" data-posts="(\d+)"/g)].map((m) => [
    Number(m[1]),
    Number(m[2]),
  ]);
  const rows = [
    ...languages.text.matchAll(
      /<tr data-language-id="(\d+)">[\s\S]*?<td class="number post-count">([\d,]+)<\/td>/g,
    ),
  ].map((m) => [Number(m[1]), Number(m[2]!.replaceAll(",", ""))]);
  assert.deepEqual(bars, rows);
  assert.deepEqual(
    bars.find(([id]) => id === fx.languages.fr),
    [fx.languages.fr, 2],
  );
});

test("search marks what it found, keeps the sort and records the search", async () => {
  const page = await get("/search?q=cafe&sort=date");
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("cache-control"), "no-store");
  assert.deepEqual(listedPosts(page.text), [fx.posts.b1]);
  assert.match(page.text, /<mark>Café<\/mark> déjà vu/);
  assert.match(page.text, /un <mark>café<\/mark> au lait/);
  assert.match(page.text, /<option value="date" selected>Newest<\/option>/);
  assert.match(page.text, /<input id="search-q" type="search" name="q" value="cafe"/);
  assert.match(page.text, /href="\/feeds\/search\.rss\?q=cafe"/);
  const empty = await get("/search");
  assert.equal(empty.status, 200);
  assert.match(
    empty.text,
    /<h2 id="recent-searches-heading">Recent searches<\/h2>\n<ul class="side-list recent-searches"><li><a href="\/search\?q=cafe">cafe<\/a>/,
  );
});

test("search takes the operators, marks them as operators and a prefix's matches, and lists them in the tips", async () => {
  const page = await get("/search?q=feed%3Aflex+titl*&sort=date");
  assert.equal(page.status, 200);
  assert.deepEqual(listedPosts(page.text), []);
  const prefix = await get("/search?q=flex*+-feed%3Aberlin+title%3Abuild*&sort=date");
  assert.deepEqual(listedPosts(prefix.text), [fx.posts.a1]);
  assert.match(prefix.text, /<mark>Flex<\/mark> <mark>builder<\/mark> released/);
  assert.match(
    prefix.text,
    /<h1>Search: <q class="query">flex<span class="operator">\*<\/span> <span class="operator">-feed:<\/span>berlin <span class="operator">title:<\/span>build<span class="operator">\*<\/span><\/q><\/h1>/,
  );
  const alone = await get(`/search?q=${encodeURIComponent("feed:berlin lang:de")}&sort=date`);
  assert.deepEqual(listedPosts(alone.text), [fx.posts.c2, fx.posts.c1]);
  const tips = await get("/search");
  for (const operator of ["title:", "feed:", "-feed:", "lang:", "after:", "before:", "*"]) {
    assert.match(
      tips.text,
      new RegExp(`<span class="operator">${operator.replace("*", "\\*")}</span>`),
      operator,
    );
  }
});

test("bad arguments give a 400 page with the operation's message; unknown ids a 404 page", async () => {
  const cases: Array<[string, number, RegExp]> = [
    ["/?page=0", 400, /The page argument must be a whole number from 1 to 100000; got &quot;0&quot;\./],
    ["/?page=abc", 400, /The page argument must be a whole number from 1 to 100000; got &quot;abc&quot;\./],
    ["/?lang=en", 400, /The languageIds argument/],
    ["/popular?days=0", 400, /The daysBack argument must be a number of days greater than 0/],
    [
      "/categories/abc",
      400,
      /The categoryId argument must be a whole number \(an id\); got &quot;abc&quot;\./,
    ],
    ["/categories/999", 404, /No category has id 999\./],
    ["/feeds/999", 404, /No feed has id 999\./],
    ["/smart-categories/999", 404, /smart category/],
    ["/smart-categories/not-a-key", 404, /by its id \(digits\) or its key \(a UUID\)/],
    [`/search?q=${"x".repeat(300)}`, 400, /searchTerms/],
    [
      "/search?q=flex+after%3Ayesterday",
      400,
      /The search operator after:yesterday needs a UTC day written YYYY-MM-DD, such as after:2026-01-31\./,
    ],
    ["/search?q=lang%3Axyz", 400, /The search operator lang:xyz names xyz/],
  ];
  for (const [path, status, message] of cases) {
    const page = await get(path);
    assert.equal(page.status, status, path);
    assert.match(page.text, /<p class="error-message">/, path);
    assert.match(page.text, message, path);
    assert.equal(page.headers.get("content-security-policy")?.includes("script-src 'self'"), true, path);
  }
});

test("an unknown address gives a browser the 404 page and a program the plain-text answer", async () => {
  const browser = await get("/no/such/page", { accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8" });
  assert.equal(browser.status, 404);
  assert.equal(browser.headers.get("content-type"), "text/html; charset=utf-8");
  assert.match(browser.text, /<p class="error-message">No page lives at this address\.<\/p>/);
  assert.match(browser.text, /<form[^>]+action="\/search"/, "the page keeps the search box");
  assert.equal(browser.headers.get("content-security-policy")?.includes("script-src 'self'"), true);
  const program = await get("/no/such/page");
  assert.equal(program.status, 404);
  assert.equal(program.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(program.text, "Not found.\n");
});

test("every page carries the CSP (own origin only, no inline script) and the hardening headers", async () => {
  for (const path of [
    "/",
    "/search?q=flex",
    "/popular",
    "/categories",
    `/categories/${fx.categories.apple}`,
    "/smart-categories",
    `/smart-categories/${fx.smart.id}`,
    "/feeds",
    `/feeds/${fx.feeds.flexWeekly}`,
    "/languages",
  ]) {
    const page = await get(path);
    assert.equal(page.status, 200, path);
    const csp = page.headers.get("content-security-policy") ?? "";
    assert.match(csp, /default-src 'none'/, path);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:|\*/, path);
    assert.equal(page.headers.get("x-content-type-options"), "nosniff");
    assert.equal(page.headers.get("x-frame-options"), "DENY");
    // No inline script and no inline style: the only script is the hashed file.
    assert.deepEqual(
      [...page.text.matchAll(/<script[^>]*>/g)].map((m) => m[0]),
      [`<script src="${/<script src="([^"]+)"/.exec(page.text)?.[1]}" defer>`],
    );
    assert.doesNotMatch(page.text, /<style|\sstyle="|\son[a-z]+="/i, path);
  }
});

test("hostile feed text stays text on every page: no markup, no javascript: link", async () => {
  const paths = [
    "/",
    `/feeds/${hostile.feedId}`,
    `/categories/${hostile.categoryId}`,
    "/categories",
    "/feeds",
    "/smart-categories",
    "/search?q=hostile",
    "/languages",
  ];
  for (const path of paths) {
    const page = await get(path);
    assert.equal(page.status, 200, path);
    // Escaped text may still spell `onerror=` (it is text), but never an attribute with a quote after it.
    assert.doesNotMatch(page.text, /<script>|<img |<svg onload|<iframe|<b |\son[a-z]+=["']/i, path);
    assert.doesNotMatch(page.text, /href="javascript:|src="javascript:/i, path);
  }
  const feed = await get(`/feeds/${hostile.feedId}`);
  assert.match(
    feed.text,
    /<h1>&lt;script&gt;window.__pwned=&quot;feed&quot;&lt;\/script&gt;Hostile feed<\/h1>/,
  );
  assert.doesNotMatch(feed.text, /<dt>Site<\/dt>/, "a javascript: site URL is not linked");
  assert.match(feed.text, /href="https:\/\/hostile\.example\.org\/feed\?a=1&amp;b=%3Cscript%3E"/);
});

test("assets: content-hashed names, a year-long immutable cache, gzip when accepted", async () => {
  const page = await get("/");
  const css = /<link rel="stylesheet" href="(\/assets\/pages\.[0-9a-f]{10}\.css)">/.exec(page.text)?.[1];
  const js = /<script src="(\/assets\/pages\.[0-9a-f]{10}\.js)" defer>/.exec(page.text)?.[1];
  const icon = /<link rel="icon" type="image\/svg\+xml" href="(\/assets\/favicon\.[0-9a-f]{10}\.svg)">/.exec(
    page.text,
  )?.[1];
  assert.ok(css && js && icon, "the page names its hashed assets");
  const plain = await get(css);
  assert.equal(plain.status, 200);
  assert.equal(plain.headers.get("cache-control"), "public, max-age=31536000, immutable");
  assert.equal(plain.headers.get("content-type"), "text/css; charset=utf-8");
  assert.match(plain.text, /prefers-color-scheme: dark/);
  // node:http, not fetch: fetch would undo the gzip before the test could see it.
  const zipped = await new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
    httpGet(service.baseUrl + js, { headers: { "Accept-Encoding": "gzip" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ encoding: res.headers["content-encoding"], body: Buffer.concat(chunks) }),
      );
    }).on("error", reject);
  });
  assert.equal(zipped.encoding, "gzip");
  assert.match(gunzipSync(zipped.body).toString(), /keydown/);
  assert.equal((await get(css.replace(/\.[0-9a-f]{10}\./, ".0000000000."))).status, 404);
  const favicon = await get("/favicon.ico");
  assert.equal(favicon.status, 301);
  assert.equal(favicon.headers.get("location"), icon);
});

test("/opensearch.xml describes the search page and the search feeds under the service's URL", async () => {
  const doc = await get("/opensearch.xml");
  assert.equal(doc.status, 200);
  assert.equal(doc.headers.get("content-type"), "application/opensearchdescription+xml; charset=utf-8");
  assert.match(
    doc.text,
    new RegExp(
      `<Url type="text/html" method="get" template="${service.baseUrl}/search\\?q=\\{searchTerms\\}"/>`,
    ),
  );
  assert.match(
    doc.text,
    new RegExp(
      `<Url type="application/rss\\+xml" template="${service.baseUrl}/feeds/search\\.rss\\?q=\\{searchTerms\\}"/>`,
    ),
  );
  // The example query shows the operators; the search feeds take them (output-feeds.suite.ts).
  assert.match(doc.text, /<Query role="example" searchTerms="release title:postgre\* after:2026-01-01"\/>/);
});
