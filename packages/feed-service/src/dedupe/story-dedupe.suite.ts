/**
 * One story once, end to end on one backend: feeds served by a local HTTP server, stored by the
 * real CLI (`feeds add`, `ingest --all`), then read through the store as the operations do. Each
 * kind of copy has its fixture: the same link with tracking parameters, the same text under
 * another link, a changed permalink, a bump (an old post re-dated in another feed), short posts
 * that must stay apart, two different posts under one title, copies inside one document, and the
 * links feeds declare (feedburner:origLink, rel=canonical).
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { PostRecord } from "../store/store.js";
import { localFeedsEnv, runCaptured } from "../test-support/captured-run.js";
import { longStoryTexts } from "../test-support/story-posts.js";
import type { TestBackend } from "../test-support/test-backends.js";
import { withStoreAt } from "../test-support/with-store-at.js";

const DAY = 86_400_000;
const now = Date.now();
const at = (daysAgo: number) => new Date(now - daysAgo * DAY).toUTCString();

const weeklyA =
  "Our weekly newsletter collects the links we read this week: a long essay on the history of printing " +
  "presses, three recipes for autumn soups, a guide to repairing bicycles at home and an interview with " +
  "the librarian who catalogued the oldest maps of the town.";
const weeklyB =
  "This week the choir rehearsed for the winter concert, the football club elected a new treasurer, the " +
  "bakery on the corner changed its opening hours and the school announced that the swimming lessons " +
  "move to Thursday afternoons from the first of the month.";
const archiveText =
  "Ten years ago the harbour was a place of empty warehouses and broken cranes; today the old customs " +
  "house holds a museum, the piers host a night market and the ferries carry more visitors than the " +
  "fishing boats ever carried fish, as this look back shows.";
const movedText =
  "The library opens a workshop where anyone can learn to bind books by hand, with paper from the mill " +
  "up the valley, thread from the weaving school and the patience of two retired printers who volunteer " +
  "every Saturday morning until the spring.";

interface Item {
  guid: string;
  link: string;
  title: string;
  text: string;
  daysAgo: number;
}

function rss(title: string, items: readonly Item[]): string {
  const entries = items
    .map(
      (
        i,
      ) => `<item><guid>${i.guid}</guid><link>${i.link.replace(/&/g, "&amp;")}</link><title>${i.title}</title>
      <description>${i.text}</description><pubDate>${at(i.daysAgo)}</pubDate></item>`,
    )
    .join("\n");
  return `<rss version="2.0"><channel><title>${title}</title><link>https://site.example/</link><language>en</language>
    ${entries}</channel></rss>`;
}

const blog: Item[] = [
  {
    guid: "a-tram",
    link: "https://blog.example/2026/tram",
    title: "Tram line extended",
    text: longStoryTexts.tram,
    daysAgo: 1,
  },
  {
    guid: "a-garden",
    link: "https://blog.example/garden",
    title: "A garden path",
    text: longStoryTexts.garden,
    daysAgo: 2,
  },
  {
    guid: "a-status",
    link: "https://blog.example/status",
    title: "Status",
    text: "Back online.",
    daysAgo: 3,
  },
  {
    guid: "a-weekly",
    link: "https://blog.example/weekly-1",
    title: "Weekly notes",
    text: weeklyA,
    daysAgo: 4,
  },
  { guid: "a-moved", link: "https://blog.example/old-path", title: "Old title", text: movedText, daysAgo: 5 },
  {
    guid: "a-archive",
    link: "https://blog.example/harbour",
    title: "The harbour",
    text: archiveText,
    daysAgo: 30,
  },
];

const planet: Item[] = [
  {
    guid: "b-tram",
    link: "HTTPS://Blog.Example:443/2026/tram/?utm_source=rss&utm_medium=feed&fbclid=x#comments",
    title: "Tram line extended (planet)",
    text: "A short note on the tram.",
    daysAgo: 1,
  },
  {
    guid: "b-garden",
    link: "https://planet.example/posts/garden-copy",
    title: "A garden path",
    text: `${longStoryTexts.garden} Read more on the blog.`,
    daysAgo: 2,
  },
  {
    guid: "b-status",
    link: "https://planet.example/status",
    title: "Status",
    text: "Back online.",
    daysAgo: 3,
  },
  {
    guid: "b-weekly",
    link: "https://planet.example/weekly",
    title: "Weekly notes",
    text: weeklyB,
    daysAgo: 4,
  },
  // A bump: the blog's old post re-dated to the top by the planet.
  {
    guid: "b-harbour",
    link: "http://blog.example/harbour?ref=planet",
    title: "The harbour",
    text: archiveText,
    daysAgo: 0,
  },
];

export function storyDedupeSuite(backend: TestBackend): void {
  describe(`one story once (${backend.name})`, () => {
    let server: Server;
    let base: string;
    const documents = new Map<string, string>();

    before(async () => {
      server = createServer((req, res) => {
        const doc = documents.get(req.url ?? "");
        if (doc === undefined) return void res.writeHead(404).end();
        res.writeHead(200, { "content-type": "application/rss+xml" }).end(doc);
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => {
      server.closeAllConnections();
      server.close();
    });

    const cli = async (argv: string[]) => {
      const run = await runCaptured(argv, undefined, localFeedsEnv);
      assert.equal(run.code, 0, `${argv.join(" ")}: ${run.stdout} ${run.stderr}`);
      return run;
    };

    const titles = (posts: readonly PostRecord[]) => posts.map((p) => p.postTitle);

    it("merges copies across feeds by canonical link and by text, keeps the rest apart, and splits on request", async () => {
      const db = await backend.newDatabase();
      const location = db.location;
      try {
        documents.set("/blog.xml", rss("Blog", blog));
        documents.set("/planet.xml", rss("Planet", planet));
        await cli(["feeds", "add", `${base}/blog.xml`, "--name", "Blog", "--database", location]);
        await cli(["ingest", "--all", "--database", location]);
        await cli(["feeds", "add", `${base}/planet.xml`, "--name", "Planet", "--database", location]);
        await cli(["ingest", "--all", "--database", location]);
        // A second pass over unchanged documents adds nothing: the copies are known by guid.
        await cli(["ingest", "--all", "--database", location]);

        await withStoreAt(location, async (store) => {
          const [blogFeed, planetFeed] = await store.feeds();
          assert.equal(blogFeed?.feedName, "Blog");
          const recent = await store.recentPosts({ limit: 50, offset: 0, languageIds: null });
          assert.deepEqual(
            titles(recent),
            [
              "Tram line extended",
              "A garden path",
              "Status",
              "Status",
              "Weekly notes",
              "Weekly notes",
              "Old title",
              // The bump did not move the story: it stays at its first date.
              "The harbour",
            ],
            "one row per story; short posts and different posts under one title stay apart",
          );
          const byTitle = (t: string) => recent.filter((p) => p.postTitle === t);
          for (const t of ["Tram line extended", "A garden path", "The harbour"])
            assert.equal(byTitle(t)[0]!.feedId, blogFeed!.feedId, `${t}: the first feed is the story's feed`);
          const tram = byTitle("Tram line extended")[0]!;
          const garden = byTitle("A garden path")[0]!;
          const harbour = byTitle("The harbour")[0]!;
          assert.equal(harbour.postDate, recent.at(-1)!.postDate);
          assert.ok(now - harbour.postDate > 29 * DAY);

          const also = await store.alsoIn(recent.map((p) => p.postId));
          const planetRef = [{ feedId: planetFeed!.feedId, feedName: "Planet" }];
          assert.deepEqual(also.get(tram.postId), planetRef);
          assert.deepEqual(also.get(garden.postId), planetRef);
          assert.deepEqual(also.get(harbour.postId), planetRef);
          assert.equal(also.size, 3, "only the merged stories are also in another feed");

          // The planet's own list shows every story it carries, in date order, under the story's id.
          const planetList = await store.postsByFeed({ feedId: planetFeed!.feedId, limit: 20, offset: 0 });
          assert.deepEqual(titles(planetList), [
            "Tram line extended",
            "A garden path",
            "Status",
            "Weekly notes",
            "The harbour",
          ]);
          assert.equal(planetList[0]!.postId, tram.postId, "a click on the copy counts for the story");
          for (let offset = 0; offset < 6; offset++) {
            const page = await store.postsByFeed({ feedId: planetFeed!.feedId, limit: 2, offset });
            assert.deepEqual(titles(page), titles(planetList.slice(offset, offset + 2)), `offset ${offset}`);
          }
          assert.equal((await store.feedById(planetFeed!.feedId))?.postCount, 5);

          // Clicks on the story, whichever feed's line it was clicked on.
          assert.ok(await store.recordClick(tram.postId, "client-1", now, 60_000));
          const merges = await store.storyMerges(10);
          assert.deepEqual(merges.map((m) => [m.copyGuid, m.mergedBy]).sort(), [
            ["b-garden", "text"],
            ["b-harbour", "link"],
            ["b-tram", "link"],
          ]);
        });

        // A changed permalink and title (same guid, same feed) updates the story in place, and a
        // feed carrying the new permalink later meets the story.
        documents.set(
          "/blog.xml",
          rss(
            "Blog",
            blog.map((i) =>
              i.guid === "a-moved" ? { ...i, link: "https://blog.example/new-path", title: "New title" } : i,
            ),
          ),
        );
        await cli(["ingest", "--all", "--database", location]);
        documents.set(
          "/news.xml",
          rss("News", [
            {
              guid: "n-1",
              link: "https://blog.example/new-path/?utm_campaign=x",
              title: "Bookbinding",
              text: "x",
              daysAgo: 5,
            },
          ]),
        );
        await cli(["feeds", "add", `${base}/news.xml`, "--name", "News", "--database", location]);
        await cli(["ingest", "--all", "--database", location]);
        await withStoreAt(location, async (store) => {
          const recent = await store.recentPosts({ limit: 50, offset: 0, languageIds: null });
          const moved = recent.filter((p) => p.postLink.includes("path"));
          assert.deepEqual(
            moved.map((p) => [p.postTitle, p.postLink]),
            [["New title", "https://blog.example/new-path"]],
          );
          const also = await store.alsoIn([moved[0]!.postId]);
          assert.deepEqual(
            also.get(moved[0]!.postId)?.map((f) => f.feedName),
            ["News"],
          );

          // Undo: the tram story splits again; the planet's copy is a post of its own.
          const tram = recent.find((p) => p.postTitle === "Tram line extended")!;
          assert.equal(await store.splitStory(tram.postId), true);
          assert.equal(await store.splitStory(tram.postId), false, "nothing left to split");
          const after = await store.recentPosts({ limit: 50, offset: 0, languageIds: null });
          // Same date: the split copy, stored last, comes first (ties by id descending).
          assert.deepEqual(
            titles(after).filter((t) => t.startsWith("Tram")),
            ["Tram line extended (planet)", "Tram line extended"],
          );
          assert.equal((await store.alsoIn([tram.postId])).size, 0);
        });
      } finally {
        db.drop();
      }
    });

    it("merges the entries of one document that copy each other, as every backend writes them", async () => {
      const db = await backend.newDatabase();
      const location = db.location;
      try {
        const digest: Item[] = [
          {
            guid: "d-tram",
            link: "https://digest.example/tram",
            title: "Tram",
            text: longStoryTexts.tram,
            daysAgo: 1,
          },
          // The same link with tracking parameters, the same text with a footer: one story.
          {
            guid: "d-tram-shared",
            link: "https://digest.example/tram?utm_source=newsletter&fbclid=1",
            title: "Tram (shared)",
            text: `${longStoryTexts.tram} Shared from the newsletter.`,
            daysAgo: 1,
          },
          {
            guid: "d-garden",
            link: "https://digest.example/garden",
            title: "Garden",
            text: longStoryTexts.garden,
            daysAgo: 2,
          },
          // Republished text under another guid and link.
          {
            guid: "d-garden-again",
            link: "https://digest.example/2026/garden",
            title: "Garden",
            text: longStoryTexts.garden,
            daysAgo: 2,
          },
          // The same link with tracking parameters and short texts: a link merges across feeds only.
          {
            guid: "d-note-1",
            link: "https://digest.example/note",
            title: "Note",
            text: weeklyA.slice(0, 40),
            daysAgo: 3,
          },
          {
            guid: "d-note-2",
            link: "https://digest.example/note?utm_medium=rss",
            title: "Note",
            text: weeklyB.slice(0, 40),
            daysAgo: 3,
          },
        ];
        documents.set("/digest.xml", rss("Digest", digest));
        await cli(["feeds", "add", `${base}/digest.xml`, "--name", "Digest", "--database", location]);
        await cli(["ingest", "--all", "--database", location]);
        await withStoreAt(location, async (store) => {
          const recent = await store.recentPosts({ limit: 20, offset: 0, languageIds: null });
          assert.deepEqual(
            recent.map((p) => [p.postTitle, p.postLink]),
            [
              ["Tram (shared)", "https://digest.example/tram?utm_source=newsletter&fbclid=1"],
              ["Garden", "https://digest.example/2026/garden"],
              ["Note", "https://digest.example/note?utm_medium=rss"],
              ["Note", "https://digest.example/note"],
            ],
          );
          const [feed] = await store.feeds();
          assert.equal(feed?.postCount, 4);
          assert.equal((await store.alsoIn(recent.map((p) => p.postId))).size, 0);
        });
        const merges = JSON.parse(
          (await cli(["posts", "duplicates", "--json", "--database", location])).stdout,
        ) as Array<{ copyGuid: string; mergedBy: string; storyTitle: string }>;
        assert.deepEqual(merges.map((m) => [m.copyGuid, m.mergedBy, m.storyTitle]).sort(), [
          ["d-garden-again", "text", "Garden"],
          ["d-tram-shared", "text", "Tram (shared)"],
        ]);
      } finally {
        db.drop();
      }
    });

    it("meets a story through the link a feed declares: feedburner:origLink (RSS) and rel=canonical (Atom)", async () => {
      const db = await backend.newDatabase();
      const location = db.location;
      try {
        // FeedBurner's items link to its redirects; origLink names the blog's own page.
        const feedburner = `<rss xmlns:feedburner="http://rssnamespace.org/feedburner/ext/1.0" version="2.0">
          <channel><title>Blog (FeedBurner)</title><link>https://blog.example/</link>
          <item><guid isPermaLink="false">fb-tram</guid><link>https://feedproxy.google.com/~r/blog/~3/AbC/</link>
            <title>Tram line extended</title><description>A short note on the tram.</description>
            <pubDate>${at(1)}</pubDate><feedburner:origLink>https://blog.example/2026/tram</feedburner:origLink></item>
          <item><guid isPermaLink="false">fb-own</guid><link>https://feedproxy.google.com/~r/blog/~3/DeF/</link>
            <title>Only here</title><description>Not on the blog.</description><pubDate>${at(1.5)}</pubDate></item>
          </channel></rss>`;
        const mirror = `<feed xmlns="http://www.w3.org/2005/Atom"><title>Mirror</title><id>tag:mirror</id>
          <updated>${new Date(now).toISOString()}</updated>
          <entry><id>tag:mirror,1</id><title>Status</title><updated>${new Date(now - 3 * DAY).toISOString()}</updated>
            <link rel="alternate" href="https://mirror.example/status-copy"/>
            <link rel="canonical" href="https://blog.example/status"/><summary>Back online.</summary></entry>
          </feed>`;
        documents.set("/blog.xml", rss("Blog", blog));
        documents.set("/feedburner.xml", feedburner);
        documents.set("/mirror.xml", mirror);
        await cli(["feeds", "add", `${base}/blog.xml`, "--name", "Blog", "--database", location]);
        await cli(["ingest", "--all", "--database", location]);
        await cli(["feeds", "add", `${base}/feedburner.xml`, "--name", "FeedBurner", "--database", location]);
        await cli(["feeds", "add", `${base}/mirror.xml`, "--name", "Mirror", "--database", location]);
        await cli(["ingest", "--all", "--database", location]);
        await withStoreAt(location, async (store) => {
          const recent = await store.recentPosts({ limit: 50, offset: 0, languageIds: null });
          assert.deepEqual(titles(recent), [
            "Tram line extended",
            "Only here",
            "A garden path",
            "Status",
            "Weekly notes",
            "Old title",
            "The harbour",
          ]);
          const feeds = new Map((await store.feeds()).map((f) => [f.feedName, f.feedId]));
          const tram = recent[0]!;
          const status = recent.find((p) => p.postTitle === "Status")!;
          assert.equal(tram.feedId, feeds.get("Blog"));
          assert.equal(tram.postLink, "https://blog.example/2026/tram");
          assert.equal(status.feedId, feeds.get("Blog"));
          const also = await store.alsoIn([tram.postId, status.postId]);
          assert.deepEqual(also.get(tram.postId), [
            { feedId: feeds.get("FeedBurner"), feedName: "FeedBurner" },
          ]);
          assert.deepEqual(also.get(status.postId), [{ feedId: feeds.get("Mirror"), feedName: "Mirror" }]);
        });
        const merges = JSON.parse(
          (await cli(["posts", "duplicates", "--json", "--database", location])).stdout,
        ) as Array<{ copyGuid: string; mergedBy: string; copyLink: string }>;
        assert.deepEqual(merges.map((m) => [m.copyGuid, m.mergedBy, m.copyLink]).sort(), [
          ["fb-tram", "link", "https://feedproxy.google.com/~r/blog/~3/AbC/"],
          ["tag:mirror,1", "link", "https://mirror.example/status-copy"],
        ]);
      } finally {
        db.drop();
      }
    });
  });
}
