/**
 * The pages' reads beside the operation table, on SQLite and on PostgreSQL: the search count
 * takes search's arguments with search's rules and messages, is exact up to its bound and says
 * "more than" beyond it (spec §4's 10,000 is exercised in the store contract and the pages test),
 * records nothing in the search history; and the failing feeds come keyed by id.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { FeedServiceError } from "../errors.js";
import { parseSearchQuery } from "../search/parse-search-query.js";
import { openStore } from "../store/open-store.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";
import { createOperationRunner } from "./operation-runner.js";
import { searchCountBound } from "./page-reads.js";

const pg = postgresBackend();
after(() => pg.stop());

for (const backend of [sqliteBackend, pg] satisfies TestBackend[]) {
  describe(`page reads (${backend.name})`, () => {
    it("count search matches with search's rules, exact up to the bound", async () => {
      const database = await backend.newDatabase();
      const store = await openStore(database.location);
      try {
        const runner = createOperationRunner({ store, parseSearch: parseSearchQuery });
        const reads = runner.pageReads;
        const feed = await store.addFeed({ feedUrl: "https://otter.test/", feedName: "Rivers" });
        await store.applyFeedUpdate(feed.feedId, {
          fetchState: {},
          posts: Array.from({ length: 12 }, (_, i) => ({
            guid: `o${i}`,
            link: `https://otter.test/${i}`,
            title: `Otter ${i}`,
            excerpt: "",
            content: "",
            publishedAt: Date.UTC(2026, 0, 1, i),
            updatedAt: null,
            seenAt: Date.UTC(2026, 0, 1, i),
            languageId: 1,
          })),
        });
        assert.equal(searchCountBound, 10_000, "spec §4's bound");
        assert.deepEqual(await reads.countSearchMatches({ searchTerms: "otter", languageIds: "" }), {
          count: 12,
          exact: true,
        });
        assert.deepEqual(await reads.countSearchMatches({ searchTerms: "otter", languageIds: "1" }, 12), {
          count: 12,
          exact: true,
        });
        assert.deepEqual(await reads.countSearchMatches({ searchTerms: "otter", languageIds: "" }, 11), {
          count: 11,
          exact: false,
        });
        assert.deepEqual(await reads.countSearchMatches({ searchTerms: "-otter", languageIds: "" }), {
          count: 0,
          exact: true,
        });
        assert.deepEqual(await store.searchHistory(20), [], "counting records no search");

        // The same messages as operation 1 itself.
        for (const args of [
          { searchTerms: "   ", languageIds: "" },
          { searchTerms: "otter", languageIds: "one" },
        ]) {
          const fromSearch = await runner
            .call("search", { ...args, limit: 1, offset: 0, sortBy: "" }, { baseUrl: "http://t" })
            .then(
              () => undefined,
              (e: unknown) => e,
            );
          assert.ok(fromSearch instanceof FeedServiceError);
          await assert.rejects(reads.countSearchMatches(args), (e: unknown) => {
            assert.ok(e instanceof FeedServiceError);
            assert.equal(e.code, fromSearch.code);
            assert.equal(e.message, fromSearch.message);
            return true;
          });
        }

        assert.equal((await reads.failingFeeds()).size, 0);
        await store.applyFeedUpdate(feed.feedId, {
          posts: [],
          fetchState: { errorCount: 1, lastErrorAt: 5, lastErrorCode: "TLS", lastErrorStage: "fetch" },
        });
        assert.equal((await reads.failingFeeds()).get(feed.feedId)?.lastErrorCode, "TLS");
      } finally {
        await store.close();
        database.drop();
      }
    });
  });
}
