/**
 * One story once as clients see it, on SQLite and on a real PostgreSQL: the JSON records of the
 * post lists end with `alsoIn` (the other feeds that carry the story), the pages say "also in" on
 * the post's line, and the second feed's page lists the story; the SOAP records keep the spec's
 * columns (§4) and nothing else.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { postColumns } from "../operations/column-sets.js";
import { fixtureNow, hour, startTestService } from "../test-support/service-fixture.js";
import { callOperation } from "../test-support/soap-test-client.js";
import { storyPost, storyTexts } from "../test-support/story-posts.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";

const post = (guid: string, link: string, title: string, excerpt: string, hoursAgo: number) =>
  storyPost(guid, link, title, excerpt, fixtureNow - hoursAgo * hour, { content: "", seenAt: fixtureNow });

const backends: TestBackend[] = [sqliteBackend, postgresBackend()];
after(() => Promise.all(backends.map((b) => b.stop())));

for (const backend of backends) {
  describe(`one story once in the answers (${backend.name})`, () => {
    it("adds alsoIn at the end of JSON post records, 'also in' to the pages, nothing to SOAP", async () => {
      const service = await startTestService({ backend });
      try {
        const { store, baseUrl } = service;
        const blog = (await store.addFeed({ feedUrl: "https://blog.example/feed", feedName: "Blog" })).feedId;
        const planet = (await store.addFeed({ feedUrl: "https://planet.example/feed", feedName: "Planet" }))
          .feedId;
        await store.applyFeedUpdate(blog, {
          fetchState: {},
          posts: [
            post("a1", "https://blog.example/tram", "Tram", storyTexts.tram, 1),
            post("a2", "https://blog.example/other", "Other", "Something else entirely.", 2),
          ],
        });
        await store.applyFeedUpdate(planet, {
          fetchState: {},
          posts: [
            post("b1", "https://blog.example/tram?utm_source=planet", "Tram (planet)", "A note.", 1),
            post("b2", "https://planet.example/own", "Planet's own", "Only here.", 3),
          ],
        });

        const json = (await (await fetch(`${baseUrl}/api/v1/posts?limit=10`)).json()) as {
          items: Array<Record<string, unknown>>;
        };
        assert.deepEqual(
          json.items.map((i) => i.postTitle),
          ["Tram", "Other", "Planet's own"],
        );
        assert.deepEqual(Object.keys(json.items[0]!), [...postColumns.map((c) => c.name), "alsoIn"]);
        assert.deepEqual(json.items[0]!.alsoIn, [{ feedId: planet, feedName: "Planet" }]);
        assert.deepEqual(json.items[1]!.alsoIn, []);
        const byFeed = (await (await fetch(`${baseUrl}/api/v1/feeds/${planet}/posts?limit=10`)).json()) as {
          items: Array<Record<string, unknown>>;
        };
        assert.deepEqual(
          byFeed.items.map((i) => [i.postTitle, i.feedName]),
          [
            ["Tram", "Blog"],
            ["Planet's own", "Planet"],
          ],
        );

        const home = await (await fetch(`${baseUrl}/`)).text();
        assert.match(home, new RegExp(`also in <a href="/feeds/${planet}">Planet</a>`));
        assert.equal(home.match(/>Tram</g)?.length, 1, "the story shows once");
        const planetPage = await (await fetch(`${baseUrl}/feeds/${planet}`)).text();
        assert.match(planetPage, /<a href="\/click\/\d+"[^>]*>Tram<\/a>/);

        const soap = await callOperation(baseUrl, "getMostRecentPosts", {
          limit: 10,
          offset: 0,
          languageIds: "",
        });
        assert.equal(soap.status, 200, soap.body);
        assert.deepEqual(
          soap.columns,
          postColumns.map((c) => c.name),
          "the QueryBean keeps the spec's columns",
        );
        assert.equal(soap.rows?.length, 3, "one row per story over SOAP too");
      } finally {
        await service.close();
      }
    });
  });
}
