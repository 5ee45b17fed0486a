/**
 * migrate-data on real databases: a SQLite file with the demo corpus (plus clicks, searches,
 * smart categories and the install secret) copied to PostgreSQL and back to a new SQLite file.
 * Every read of the 16 operations answers the same on all three, search included (the two
 * backends index the same words); ids are kept and new rows continue after them; a non-empty
 * target is refused unless forced.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadDemoData } from "../demo/load-demo-data.js";
import { parseSearchQuery } from "../search/parse-search-query.js";
import { openStore } from "../store/open-store.js";
import type { SearchSort, Store } from "../store/store.js";
import { runCaptured } from "../test-support/captured-run.js";
import { startTestPostgres, type TestPostgres } from "../test-support/test-postgres-server.js";
import { migrateData } from "./migrate-data.js";

const NOW = Date.parse("2026-01-10T12:00:00Z");
const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), "feed-migrate-"));
let server: TestPostgres;

before(async () => {
  server = await startTestPostgres();
});
after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const searches = ["the", "data OR web", '"open source"', "news -the", "café", "2025"];

async function snapshot(store: Store) {
  const page = { limit: 1000, offset: 0, languageIds: null };
  const found: Record<string, unknown> = {};
  for (const terms of searches) {
    for (const sort of ["date", "clicks"] as SearchSort[]) {
      found[`${terms}/${sort}`] = (
        await store.searchPosts({ ...page, query: parseSearchQuery(terms), sort })
      ).map(({ score: _score, ...post }) => post);
    }
    const relevant = await store.searchPosts({ ...page, query: parseSearchQuery(terms), sort: "relevance" });
    found[`${terms}/relevance`] = relevant.map((p) => p.postId).sort((a, b) => a - b);
  }
  return {
    recent: await store.recentPosts({ limit: 1000, offset: 0, languageIds: null }),
    found,
    feeds: await store.adminFeeds(),
    categories: await store.categories(),
    smart: await store.smartCategories(),
    languages: await store.aggregateLanguageData(NOW),
    popular: await store.mostPopularPosts({ since: NOW - 30 * DAY, limit: 50, categoryId: null }),
    popularFeeds: await store.mostPopularFeeds({ since: NOW - 30 * DAY, limit: 50 }),
    prolific: await store.mostProlificFeeds({ since: NOW - 30 * DAY, limit: 50 }),
    history: await store.searchHistory(20),
    secret: await store.installSecret(),
    websub: await store.websub.subscriptions(),
  };
}

describe("migrate-data", () => {
  it("copies SQLite to PostgreSQL and back with every answer and id unchanged", async () => {
    const first = join(dir, "first.db");
    const seed = await openStore(first);
    await loadDemoData(seed, { posts: 600, now: NOW, seed: 3 });
    await seed.recordSearch("Open Source", NOW - DAY);
    await seed.recordSearch("data", NOW);
    await seed.addSmartCategory({ name: "Data news", query: "data OR news" });
    const [hubbed] = await seed.adminFeeds();
    const topicUrl = hubbed!.feedUrl;
    await seed.websub.recordHubLink(hubbed!.feedId, { hubUrl: "https://hub.example/", topicUrl }, NOW);
    await seed.websub.updateSubscription(hubbed!.feedId, {
      state: "active",
      callbackId: "Zr7QWJ0kq9wX8uVd3mN1bHc5TfYgLs2A",
      secret: "copied-secret",
      leaseSeconds: 864_000,
      leaseExpiresAt: NOW + 864_000_000,
      verifiedAt: NOW,
    });
    const expected = await snapshot(seed);
    assert.equal(expected.websub.length, 1);
    await seed.close();
    assert.ok(expected.recent.length > 500 && expected.popular.length > 0);
    const hits = Object.values(expected.found).map((list) => (list as unknown[]).length);
    assert.ok(hits.filter((n) => n > 0).length >= 12, `searches that find something: ${hits}`);

    const pgUrl = await server.createDatabase("migrated");
    const progress: string[] = [];
    const there = await migrateData({
      from: `sqlite:${first}`,
      to: pgUrl,
      batchSize: 100,
      onProgress: (table, copied, total) => progress.push(`${table} ${copied}/${total}`),
    });
    assert.equal(there.tables.find((t) => t.table === "posts")?.rows, expected.recent.length);
    assert.ok(
      progress.includes(`posts ${expected.recent.length}/${expected.recent.length}`),
      progress.join(),
    );
    // Every table's first report already names the total that is then copied.
    for (const { table, rows } of there.tables)
      assert.ok(progress.includes(`${table} 0/${rows}`), progress.join());

    const pgStore = await openStore(pgUrl);
    try {
      assert.deepEqual(await snapshot(pgStore), expected);
      // Sequences continue after the copied ids.
      const added = await pgStore.addCategory("Brand new");
      assert.ok(added.categoryId > Math.max(...expected.categories.map((c) => c.categoryId)));
    } finally {
      await pgStore.close();
    }

    const back = join(dir, "back.db");
    await migrateData({ from: pgUrl, to: back });
    const sqliteAgain = await openStore(back);
    try {
      const snap = await snapshot(sqliteAgain);
      assert.deepEqual(snap.recent, expected.recent);
      assert.deepEqual(snap.found, expected.found);
      assert.deepEqual(
        snap.categories.map((c) => c.categoryName),
        [...expected.categories.map((c) => c.categoryName), "Brand new"].sort((a, b) =>
          a.toLowerCase() < b.toLowerCase() ? -1 : 1,
        ),
      );
    } finally {
      await sqliteAgain.close();
    }
  });

  it("refuses a non-empty target unless forced, a missing source, and the same database twice", async () => {
    const source = join(dir, "small.db");
    const s = await openStore(source);
    await s.addCategory("Only one");
    await s.close();
    const target = join(dir, "full.db");
    const t = await openStore(target);
    await t.addCategory("Already here");
    await t.close();
    await assert.rejects(
      migrateData({ from: source, to: target }),
      /already holds data \(categories\).*--force/,
    );
    await migrateData({ from: source, to: target, force: true });
    const check = await openStore(target);
    assert.deepEqual(
      (await check.categories()).map((c) => c.categoryName),
      ["Only one"],
    );
    await check.close();
    await assert.rejects(migrateData({ from: join(dir, "nothing.db"), to: target }), /does not exist/);
    await assert.rejects(migrateData({ from: source, to: source }), /same database/);
    await assert.rejects(
      migrateData({ from: source, to: "mysql://x/y" }),
      /SQLite file path, sqlite:<path> or a postgres/,
    );
  });

  it("runs as feed-service migrate-data: progress on stderr, a summary on stdout, exit codes", async () => {
    const source = join(dir, "cli-source.db");
    const s = await openStore(source);
    await loadDemoData(s, { posts: 50, now: NOW, seed: 1 });
    await s.close();
    const cli = (argv: string[]) => runCaptured(argv);
    const pgUrl = await server.createDatabase("from_cli");
    const done = await cli(["migrate-data", "--from", `sqlite:${source}`, "--to", pgUrl]);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /posts\s+50\b/);
    assert.match(done.stderr, /migrate-data: posts 50\/50/);
    assert.ok(!done.stderr.includes("postgres:"), "the URL (with its password) is not printed");
    const again = await cli(["migrate-data", "--from", source, "--to", pgUrl]);
    assert.equal(again.code, 1);
    assert.match(
      again.stderr,
      /^feed-service migrate-data: The target already holds data .*--force to replace it\.\n$/,
    );
    const forced = await cli(["migrate-data", "--from", source, "--to", pgUrl, "--force", "--json"]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(
      JSON.parse(forced.stdout).tables.find((t: { table: string }) => t.table === "posts").rows,
      50,
    );
    const missing = await cli(["migrate-data", "--from", source]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /needs both --from and --to/);
  });
});
