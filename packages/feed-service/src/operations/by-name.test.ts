/**
 * "By name" (spec §4) through the operations, on SQLite and on PostgreSQL: names people read in
 * several languages come in collation order (accents beside their letters, case ignored), equal
 * names by id, and the five listing operations agree on both backends.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { parseSearchQuery } from "../search/parse-search-query.js";
import { openStore } from "../store/open-store.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";
import { createOperationRunner } from "./operation-runner.js";

/** The order people expect, written out by hand (not computed by the code under test). */
const expected = [
  "Äpfel",
  "apple",
  "éclair",
  "Sage",
  "Sécurité & Réseaux",
  "Sviluppo Web Italia",
  "Zebra",
  "zèbre",
];

/** The same names in another order, so that neither id nor insertion order gives the answer. */
const written = [
  "Zebra",
  "Sviluppo Web Italia",
  "zèbre",
  "éclair",
  "Sécurité & Réseaux",
  "Äpfel",
  "Sage",
  "apple",
];

const pg = postgresBackend();
after(() => pg.stop());

for (const backend of [sqliteBackend, pg] satisfies TestBackend[]) {
  describe(`by name (${backend.name})`, () => {
    it("lists categories, smart categories and feeds in collation order, ties by id", async () => {
      const database = await backend.newDatabase();
      const store = await openStore(database.location);
      try {
        const runner = createOperationRunner({ store, parseSearch: parseSearchQuery });
        const call = async (operation: string, column: string, args = {}) =>
          (await runner.call(operation, args, { baseUrl: "http://test" })).map((r) => r[column]);
        const fr = (await store.ensureLanguage("fr")).languageId;
        const category = (await store.addCategory("Réseaux")).categoryId;
        const feedIds = new Map<string, number[]>();
        for (const [i, name] of written.entries()) {
          await store.addCategory(`${name} (c)`);
          await store.addSmartCategory({ name, query: "x" });
          const feed = await store.addFeed({
            feedUrl: `https://feed-${i}.test/`,
            feedName: name,
            categoryId: category,
            languageId: fr,
          });
          feedIds.set(name, [feed.feedId]);
        }
        // Equal names compare equal whatever their case: the tie goes to the smaller id.
        const twin = await store.addFeed({
          feedUrl: "https://twin.test/",
          feedName: "ZEBRA",
          categoryId: category,
        });
        const twinSmart = await store.addSmartCategory({ name: "ZEBRA", query: "y" });

        assert.deepEqual(
          await call("getCategories", "categoryName"),
          [...expected.slice(0, 3), "Réseaux", ...expected.slice(3)].map((n) =>
            n === "Réseaux" ? n : `${n} (c)`,
          ),
        );
        const smart = await runner.call("getSmartCategories", {}, { baseUrl: "http://test" });
        assert.deepEqual(
          smart.map((r) => r.smartCategoryName),
          [...expected.slice(0, 7), "ZEBRA", "zèbre"],
          "Zebra before ZEBRA: equal names, the first id first",
        );
        assert.equal(smart[7]!.smartCategoryId, twinSmart.smartCategoryId);

        const feedsInOrder = [...expected.slice(0, 7), "ZEBRA", "zèbre"];
        assert.deepEqual(await call("getFeeds", "feedName"), feedsInOrder);
        assert.deepEqual(
          await call("getFeedsByCategory", "feedName", { categoryId: category }),
          feedsInOrder,
        );
        assert.deepEqual(
          await call("getFeedsByLanguage", "feedName", { languageId: fr }),
          expected,
          "the twin is in English",
        );
        const ids = await call("getFeeds", "feedId");
        assert.deepEqual(ids.slice(6, 8), [feedIds.get("Zebra")![0], twin.feedId]);
      } finally {
        await store.close();
        database.drop();
      }
    });
  });
}
