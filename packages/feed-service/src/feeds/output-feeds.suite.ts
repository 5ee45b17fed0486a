/**
 * The output feeds (spec §5.2) through a real server and database, read back by two independent
 * parsers: feedsmith (the library the service ingests with) and Python's feedparser (Debian
 * python3-feedparser; without it a developer's run skips loudly, CI fails). Every kind and format,
 * with the expected items in order, including a post whose text holds markup, entities and
 * characters XML forbids; self and page links; both conditional GETs; limits and errors.
 *
 * The suite runs once per backend (SQLite and PostgreSQL): one body, the same assertions.
 *
 * @example
 * outputFeedsSuite(sqliteBackend);
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { request as httpRequest } from "node:http";
import { after, before, describe, test } from "node:test";
import { decodeHTML } from "entities";
import { parseAtomFeed, parseJsonFeed, parseRssFeed } from "feedsmith";
import { missingTool, toolAvailable } from "../test-support/external-tool.js";
import {
  type Fixture,
  fixtureNow,
  hour,
  type RunningService,
  seedFixture,
  startTestService,
} from "../test-support/service-fixture.js";
import type { TestBackend } from "../test-support/test-backends.js";

/** Debian's own Python, where python3-feedparser lives (a python3 earlier on PATH may lack it). */
const python = "/usr/bin/python3";
// feedparser reads RSS and Atom. Debian's feedparser (6.0) has no JSON Feed reader, so a JSON Feed
// is read by Python's own json module into the same shape, with its version checked.
// feedparser gives text fields as HTML when their type is text/html: those are unescaped here, to
// compare the text a reader shows.
const pythonReaderScript = `
import sys, json, html, feedparser
raw = sys.stdin.buffer.read()
def text(value, detail):
    return html.unescape(value) if value is not None and detail is not None and detail.get("type") == "text/html" else value
if sys.argv[1] == "json":
    d = json.loads(raw)
    ok = d.get("version") == "https://jsonfeed.org/version/1.1" and isinstance(d.get("items"), list)
    print(json.dumps({"bozo": not ok, "error": "", "version": "json11" if ok else "",
      "entries": [{"title": i.get("title"), "link": i.get("url"), "summary": i.get("content_text")} for i in d["items"]]}))
else:
    d = feedparser.parse(raw)
    print(json.dumps({"bozo": d.bozo, "error": str(d.get("bozo_exception", "")), "version": d.version,
      "entries": [{"title": text(e.get("title"), e.get("title_detail")), "link": e.get("link"),
                   "summary": text(e.get("summary"), e.get("summary_detail"))} for e in d.entries]}))
`;

interface ReadByPython {
  bozo: boolean | number;
  error: string;
  version: string;
  entries: Array<{ title: string; link: string; summary: string }>;
}

function readWithPython(format: string, document: string): Promise<ReadByPython> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      python,
      ["-c", pythonReaderScript, format],
      { timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`the Python reader failed: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout) as ReadByPython);
      },
    );
    child.stdin?.end(document);
  });
}

/** A post whose text is hostile: markup, entities, a CDATA end, and characters XML 1.0 forbids. */
const hostileTitle = `<b>Bold</b> & "quoted" &amp; ]]> end\u0001\u0007 \uFFFE<script>alert(1)</script>`;
const hostileExcerpt = "1 < 2 && 3 > 2 \u0008 done";
/** What each of them reads back: the same text, less the forbidden characters. */
const expectedTitle = `<b>Bold</b> & "quoted" &amp; ]]> end <script>alert(1)</script>`;
const expectedExcerpt = "1 < 2 && 3 > 2  done";

const formats = ["rss", "atom", "json"] as const;
type Format = (typeof formats)[number];
const contentTypes: Record<Format, string> = {
  rss: "application/rss+xml; charset=utf-8",
  atom: "application/atom+xml; charset=utf-8",
  json: "application/feed+json; charset=utf-8",
};

interface Item {
  title: string;
  link: string;
  summary: string;
}

/** The items as feedsmith reads them, with RSS's HTML text turned back into the text it shows. */
function feedsmithItems(format: Format, body: string): { items: Item[]; self: string | undefined } {
  if (format === "rss") {
    const feed = parseRssFeed(body);
    return {
      items: (feed.items ?? []).map((i) => ({
        title: decodeHTML(i.title ?? "").trim(),
        link: i.link ?? "",
        summary: decodeHTML(i.description ?? "").trim(),
      })),
      self: feed.atom?.links?.find((l) => l.rel === "self")?.href,
    };
  }
  if (format === "atom") {
    const feed = parseAtomFeed(body);
    return {
      items: (feed.entries ?? []).map((e) => ({
        title: (e.title?.value ?? "").trim(),
        link: e.links?.[0]?.href ?? "",
        summary: (e.summary?.value ?? "").trim(),
      })),
      self: feed.links?.find((l) => l.rel === "self")?.href,
    };
  }
  const feed = parseJsonFeed(JSON.parse(body));
  return {
    items: (feed.items ?? []).map((i) => ({
      title: i.title ?? "",
      link: i.url ?? "",
      summary: i.content_text ?? "",
    })),
    self: feed.feed_url,
  };
}

export function outputFeedsSuite(backend: TestBackend): void {
  describe(`output feeds (${backend.name})`, () => {
    let service: RunningService;
    let fx: Fixture;
    let hostileId: number;
    let hasFeedparser = false;

    before(async () => {
      service = await startTestService({ backend });
      fx = await seedFixture(service.store);
      const feed = await service.store.addFeed({
        feedUrl: "https://hostile.example.org/feed",
        feedName: "Tom & Jerry <script>",
        categoryId: fx.categories.cherry,
        languageId: 1,
      });
      await service.store.applyFeedUpdate(feed.feedId, {
        posts: [
          {
            guid: "h1",
            link: "https://hostile.example.org/1",
            title: hostileTitle,
            excerpt: hostileExcerpt,
            content: "<p>x</p>",
            publishedAt: fixtureNow - hour / 2,
            updatedAt: null,
            seenAt: fixtureNow,
            languageId: 1,
          },
        ],
        fetchState: { lastFetchedAt: fixtureNow },
      });
      const recent = await service.store.recentPosts({ limit: 1, offset: 0, languageIds: null });
      hostileId = recent[0].postId;
      hasFeedparser = await toolAvailable(python, ["-c", "import feedparser"]);
    });
    after(() => service.close());

    const click = (id: number) => `${service.baseUrl}/click/${id}`;
    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(service.baseUrl + path, { headers });

    async function checkFeed(
      path: string,
      expected: Array<{ id: number; title?: string; summary?: string }>,
      t: { skip(message?: string): void },
    ): Promise<void> {
      for (const format of formats) {
        const url = path.replace(".{ext}", `.${format}`);
        const res = await get(url);
        const body = await res.text();
        assert.equal(res.status, 200, `${url}: ${body.slice(0, 200)}`);
        assert.equal(res.headers.get("content-type"), contentTypes[format]);
        assert.doesNotMatch(body, /[\u0001\u0007\u0008\uFFFE]/, `${url} holds a character XML forbids`);
        const parsed = feedsmithItems(format, body);
        assert.equal(parsed.self, service.baseUrl + url, `${url}: self link`);
        assert.deepEqual(
          parsed.items.map((i) => i.link),
          expected.map((e) => click(e.id)),
          `${url}: items by feedsmith`,
        );
        for (const [i, e] of expected.entries()) {
          if (e.title !== undefined) assert.equal(parsed.items[i].title, e.title, `${url}: title`);
          if (e.summary !== undefined) assert.equal(parsed.items[i].summary, e.summary, `${url}: summary`);
        }
        if (!hasFeedparser) continue;
        const fp = await readWithPython(format, body);
        assert.equal(Boolean(fp.bozo), false, `${url}: bozo by the Python reader: ${fp.error}`);
        assert.equal(fp.version, { rss: "rss20", atom: "atom10", json: "json11" }[format]);
        assert.deepEqual(
          fp.entries.map((e) => e.link),
          expected.map((e) => click(e.id)),
          `${url}: items by feedparser`,
        );
        for (const [i, e] of expected.entries()) {
          if (e.title !== undefined) assert.equal(fp.entries[i].title, e.title, `${url}: feedparser title`);
          if (e.summary !== undefined)
            assert.equal(fp.entries[i].summary, e.summary, `${url}: feedparser summary`);
        }
      }
      if (!hasFeedparser) missingTool(t, `${python} with feedparser`, "Debian python3-feedparser");
    }

    test("recent posts in every format, newest first, hostile text kept as text", async (t) => {
      await checkFeed(
        "/feeds/recent.{ext}",
        [
          { id: hostileId, title: expectedTitle, summary: expectedExcerpt },
          ...["b2", "a1", "b1", "d1", "c2", "a2", "c1", "a3"].map((n) => ({ id: fx.posts[n] })),
        ],
        t,
      );
    });

    test("a category's, a smart category's (by key and by id) and a search's feed; languageIds and limit", async (t) => {
      await checkFeed(
        `/feeds/categories/${fx.categories.apple}.{ext}?limit=3`,
        ["b2", "a1", "b1"].map((n) => ({ id: fx.posts[n] })),
        t,
      );
      await checkFeed(
        `/feeds/categories/${fx.categories.cherry}.{ext}`,
        [{ id: hostileId, title: expectedTitle }],
        t,
      );
      for (const idOrKey of [fx.smart.key, String(fx.smart.id)]) {
        await checkFeed(
          `/feeds/smart-categories/${idOrKey}.{ext}`,
          ["a1", "a2"].map((n) => ({ id: fx.posts[n] })),
          t,
        );
      }
      await checkFeed(
        `/feeds/search.{ext}?q=flex&languageIds=${fx.languages.en}`,
        ["a1", "a2", "a3"].map((n) => ({ id: fx.posts[n], title: undefined })),
        t,
      );
      // The search operators of spec §4 (feed:, title:, a prefix, -) in a search feed.
      await checkFeed(
        `/feeds/search.{ext}?q=${encodeURIComponent("fle* -title:old feed:flex OR feed:berlin")}`,
        ["a1", "a2"].map((n) => ({ id: fx.posts[n], title: undefined })),
        t,
      );
      await checkFeed(
        `/feeds/recent.{ext}?languageIds=${fx.languages.fr}`,
        ["b2", "b1"].map((n) => ({ id: fx.posts[n] })),
        t,
      );
    });

    /** A feed fetched with this Host header (fetch cannot set one). */
    function getWithHost(path: string, host: string): Promise<string> {
      return new Promise((resolve, reject) => {
        const req = httpRequest(`${service.baseUrl}${path}`, { headers: { host } }, (res) => {
          let body = "";
          res.setEncoding("utf8").on("data", (chunk) => (body += chunk));
          res.on("end", () => resolve(body)).on("error", reject);
        });
        req.on("error", reject).end();
      });
    }

    /** The item ids of a feed document, and its items' links. */
    function itemIds(format: string, body: string): { ids: string[]; links: string[] } {
      if (format === "json") {
        const items = (JSON.parse(body) as { items: Array<{ id: string; url: string }> }).items;
        return { ids: items.map((i) => i.id), links: items.map((i) => i.url) };
      }
      if (format === "rss") {
        return {
          ids: [...body.matchAll(/<guid isPermaLink="false">([^<]*)<\/guid>/g)].map((m) => m[1]!),
          links: [...body.matchAll(/<item>[\s\S]*?<link>([^<]*)<\/link>/g)].map((m) => m[1]!),
        };
      }
      return {
        ids: [...body.matchAll(/<entry>[\s\S]*?<id>([^<]*)<\/id>/g)].map((m) => m[1]!),
        links: [...body.matchAll(/<entry>[\s\S]*?<link href="([^"]*)"/g)].map((m) => m[1]!),
      };
    }

    test("item ids are tag URIs that stay the same whatever Host the feed is fetched by", async () => {
      const recent = await service.store.recentPosts({ limit: 50, offset: 0, languageIds: null });
      let tag: string | undefined;
      for (const format of formats) {
        const one = itemIds(format, await getWithHost(`/feeds/recent.${format}`, "feeds.one.example"));
        const two = itemIds(format, await getWithHost(`/feeds/recent.${format}`, "other-name.example:8080"));
        assert.equal(one.ids.length, recent.length, format);
        assert.deepEqual(two.ids, one.ids, `${format}: the same ids by either name`);
        if (format === "atom") {
          const feedId = (body: string) => /<feed[^>]*>[\s\S]*?<id>([^<]*)<\/id>/.exec(body)?.[1];
          const [a, b] = await Promise.all(
            ["feeds.one.example", "other-name.example:8080"].map((h) => getWithHost("/feeds/recent.atom", h)),
          );
          assert.match(
            String(feedId(a!)),
            /^tag:[0-9a-f]{16}\.feed-service\.invalid,2026-01-15:feeds\/recent\.atom$/,
          );
          assert.equal(feedId(b!), feedId(a!), "the Atom feed's own id does not follow the Host either");
        }
        assert.notDeepEqual(two.links, one.links, `${format}: the links do follow the Host`);
        tag ??= /^(tag:[0-9a-f]{16}\.feed-service\.invalid,2026-01-15:)post\/\d+$/.exec(one.ids[0]!)?.[1];
        assert.ok(tag, `${format}: ${one.ids[0]}`);
        assert.deepEqual(
          one.ids,
          recent.map((p) => `${tag}post/${p.postId}`),
          `${format}: one id per post, under one tagging entity`,
        );
      }
      // The tagging entity is the install's, kept in the database.
      assert.equal(await service.store.installSetting("feed_item_tag", () => "other"), tag);
    });

    test("with a public URL, its host tags the items; the site's name leads every title", async () => {
      const named = await startTestService({
        backend,
        now: () => fixtureNow,
        publicUrl: "https://feeds.example.org/",
        siteName: "Planet <Node> & Friends of Streams",
      });
      try {
        const namedFx = await seedFixture(named.store);
        const fetchText = async (path: string) => (await fetch(named.baseUrl + path)).text();
        const rss = await fetchText("/feeds/recent.rss");
        assert.match(
          rss,
          // RSS readers render the title as HTML: the name goes there escaped (inside CDATA).
          /<title>\s*<!\[CDATA\[Planet &lt;Node&gt; &amp; Friends of Streams — Recent posts\]\]>\s*<\/title>/,
        );
        assert.match(rss, /<guid isPermaLink="false">tag:feeds\.example\.org,2026-01-15:post\/\d+<\/guid>/);
        const atom = await fetchText(`/feeds/categories/${namedFx.categories.apple}.atom`);
        // Atom says type="text": the generator writes text with markup characters as CDATA.
        assert.match(
          atom,
          /<title type="text">\s*<!\[CDATA\[Planet <Node> & Friends of Streams — Category: Apple\]\]>\s*<\/title>/,
        );
        const json = JSON.parse(await fetchText("/feeds/search.json?q=flex")) as { title: string };
        assert.equal(json.title, "Planet <Node> & Friends of Streams — Search: flex");
        const page = await fetchText("/");
        assert.match(page, /<title>[^<]* · Planet &lt;Node&gt; &amp; Friends of Streams<\/title>/);
        assert.match(page, /<a class="brand" href="\/">Planet &lt;Node&gt; &amp; Friends of Streams<\/a>/);
        // Feed autodiscovery names the site too, as the feed's own title does.
        assert.match(
          page,
          /<link rel="alternate" type="application\/rss\+xml" title="Planet &lt;Node&gt; &amp; Friends of Streams — Recent posts \(RSS\)" href="\/feeds\/recent\.rss">/,
        );
        const openSearch = await fetchText("/opensearch.xml");
        // OpenSearch 1.1: ShortName at most 16 characters, LongName at most 48.
        assert.match(openSearch, /<ShortName>Planet &lt;Node&gt; &amp;<\/ShortName>/);
        assert.match(openSearch, /<LongName>Planet &lt;Node&gt; &amp; Friends of Streams<\/LongName>/);
      } finally {
        await named.close();
      }
    });

    test("the feed links to its web page", async () => {
      const atom = await (await get(`/feeds/categories/${fx.categories.apple}.atom`)).text();
      assert.match(
        atom,
        new RegExp(
          `rel="alternate" type="text/html" href="${service.baseUrl}/categories/${fx.categories.apple}"|href="${service.baseUrl}/categories/${fx.categories.apple}"[^>]*rel="alternate"`,
        ),
      );
      const json = (await (await get("/feeds/search.json?q=flex")).json()) as Record<string, unknown>;
      assert.equal(json.home_page_url, `${service.baseUrl}/search?q=flex`);
      assert.equal(json.version, "https://jsonfeed.org/version/1.1");
      const rss = await (await get("/feeds/recent.rss")).text();
      assert.match(rss, new RegExp(`<link>${service.baseUrl}/</link>`));
    });

    test("ETag and Last-Modified; 304 on either conditional request; a write changes both answers", async () => {
      for (const format of formats) {
        const url = `/feeds/categories/${fx.categories.banana}.${format}`;
        const first = await get(url);
        const etag = first.headers.get("etag")!;
        const lastModified = first.headers.get("last-modified")!;
        assert.match(etag, /^"[\w-]{22}"$/);
        assert.ok(Number.isFinite(Date.parse(lastModified)), lastModified);
        assert.equal((await get(url, { "If-None-Match": etag })).status, 304);
        const byDate = await get(url, { "If-Modified-Since": lastModified });
        assert.equal(byDate.status, 304);
        assert.equal(byDate.headers.get("etag"), etag);
        const older = new Date(Date.parse(lastModified) - 1000).toUTCString();
        assert.equal((await get(url, { "If-Modified-Since": older })).status, 200);
        // If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3).
        assert.equal(
          (await get(url, { "If-None-Match": '"x"', "If-Modified-Since": lastModified })).status,
          200,
        );
      }
      const url = `/feeds/categories/${fx.categories.banana}.rss`;
      const before = await get(url);
      const feed = await service.store.addFeed({
        feedUrl: "https://new.example.org/feed",
        feedName: "New",
        categoryId: fx.categories.banana,
        languageId: 1,
      });
      await service.store.applyFeedUpdate(feed.feedId, {
        posts: [
          {
            guid: "n1",
            link: "https://new.example.org/1",
            title: "A new post",
            excerpt: "new",
            content: "",
            publishedAt: fixtureNow - 100 * 24 * hour,
            updatedAt: null,
            seenAt: fixtureNow,
            languageId: 1,
          },
        ],
        fetchState: { lastFetchedAt: fixtureNow },
      });
      const after = await get(url, {
        "If-Modified-Since": before.headers.get("last-modified")!,
      });
      // The new post is older than the others: a Last-Modified from post dates would hide it.
      assert.equal(after.status, 200);
      assert.match(await after.text(), /A new post/);
      assert.notEqual(after.headers.get("etag"), before.headers.get("etag"));
      assert.equal((await get(url, { "If-None-Match": before.headers.get("etag")! })).status, 200);
    });

    test("limits and errors: 200 items at most, problem documents for bad arguments and unknown ids", async () => {
      const problem = async (path: string, status: number, detail: RegExp) => {
        const res = await get(path);
        assert.equal(res.status, status, path);
        assert.equal(res.headers.get("content-type"), "application/problem+json; charset=utf-8");
        assert.match(String(((await res.json()) as { detail: string }).detail), detail);
      };
      await problem(
        "/feeds/recent.rss?limit=201",
        400,
        /^The limit query parameter of an output feed must be a whole number from 0 to 200; got "201"\.$/,
      );
      await problem("/feeds/recent.atom?languageIds=x", 400, /languageIds argument/);
      await problem("/feeds/categories/99.json", 404, /^No category has id 99\.$/);
      await problem("/feeds/smart-categories/99.rss", 404, /^No smart category has id 99\.$/);
      await problem("/feeds/search.rss", 400, /^The q query parameter is required/);
      await problem(
        "/feeds/search.json?q=before%3A2026-02-30",
        400,
        /^The search operator before:2026-02-30 needs a UTC day written YYYY-MM-DD, such as before:2026-01-31\.$/,
      );
      await problem(
        "/feeds/search.atom?q=%20",
        400,
        /^The q query parameter must be text of 1 to 256 characters/,
      );
      // Paths that look like output feeds but are none: problem documents too, not pages.
      await problem(
        "/feeds/popular.rss",
        404,
        /^No output feed has the path "\/feeds\/popular\.rss"; they are \/feeds\/recent/,
      );
      await problem("/feeds/categories/1/posts.atom", 404, /^No output feed has the path/);
      await problem(
        "/feeds/recent.xml",
        404,
        /^An output feed ends in \.rss, \.atom or \.json; got \.xml\.$/,
      );
      for (const [method, path] of [
        ["POST", "/feeds/recent.rss"],
        ["DELETE", "/feeds/categories/1.atom"],
        ["PUT", "/feeds/search.json?q=x"],
      ]) {
        const res = await fetch(service.baseUrl + path!, { method });
        assert.equal(res.status, 405, `${method} ${path}`);
        assert.equal(res.headers.get("allow"), "GET, HEAD");
        assert.equal(res.headers.get("content-type"), "application/problem+json; charset=utf-8");
        assert.match(
          String(((await res.json()) as { detail: string }).detail),
          /answers GET and HEAD only; got/,
        );
      }
      const two = (await (await get("/feeds/recent.json?limit=2")).json()) as { items: unknown[] };
      assert.equal(two.items.length, 2);
      const none = (await (await get("/feeds/recent.json?limit=0")).json()) as { items: unknown[] };
      assert.deepEqual(none.items, []);
    });
  });
}
