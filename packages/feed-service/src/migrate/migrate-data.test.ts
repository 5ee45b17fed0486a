/**
 * migrate-data on real databases: a SQLite file with the demo corpus (plus clicks, searches,
 * smart categories, a WebSub subscription and the install secret) copied SQLite to PostgreSQL,
 * PostgreSQL to SQLite, SQLite to SQLite and PostgreSQL to PostgreSQL. After each copy every one
 * of the 16 operations (operation-answer-sets.ts: each category, feed, smart category and
 * language, several windows and pages, each sort) answers on the copy as on its source; ids are
 * kept and new rows continue after them; a non-empty target is refused unless forced, and a
 * forced copy leaves nothing of what the target held. One story once travels too: the stories
 * other feeds carry (alsoIn, `posts duplicates`) are the same on the copy, and a new copy meets
 * its story there by text as on the source (the band rows came along).
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { loadDemoData } from "../demo/load-demo-data.js";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { runCaptured } from "../test-support/captured-run.js";
import {
  type AnswerCatalog,
  answerEveryOperation,
  comparable,
  readAnswerCatalog,
  uncoveredOperations,
} from "../test-support/operation-answer-sets.js";
import { storyPost, storyTexts } from "../test-support/story-posts.js";
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

/** A PostgreSQL database's indexes, constraints and triggers (with whether each is on). */
async function postgresSchema(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query(
      `SELECT indexdef AS line FROM pg_indexes WHERE schemaname = 'public'
       UNION ALL SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
         WHERE connamespace = 'public'::regnamespace
       UNION ALL SELECT tgrelid::regclass || ' ' || tgname || ' ' || tgenabled::text FROM pg_trigger WHERE NOT tgisinternal
       ORDER BY 1`,
    );
    return result.rows.map((r) => String(r.line));
  } finally {
    await client.end();
  }
}

const story = (guid: string, link: string, text: string, hoursAgo: number) =>
  storyPost(guid, link, `Story ${guid}`, text, NOW - hoursAgo * 3_600_000, { seenAt: NOW });

/** A blog's three stories, and a planet carrying two of them: one by link, one by text. */
async function seedStories(store: Store): Promise<void> {
  const blog = (await store.addFeed({ feedUrl: "https://story-blog.example/feed", feedName: "Story blog" }))
    .feedId;
  await store.applyFeedUpdate(blog, {
    fetchState: {},
    posts: [
      story("tram", "https://story-blog.example/tram", storyTexts.tram, 1),
      story("garden", "https://story-blog.example/garden", storyTexts.garden, 2),
      story("harbour", "https://story-blog.example/harbour", storyTexts.harbour, 3),
    ],
  });
  const planet = (
    await store.addFeed({ feedUrl: "https://story-planet.example/feed", feedName: "Story planet" })
  ).feedId;
  await store.applyFeedUpdate(planet, {
    fetchState: {},
    posts: [
      story("p-tram", "https://story-blog.example/tram?utm_source=planet", "A note on the tram.", 1),
      story("p-garden", "https://story-planet.example/garden", `${storyTexts.garden} Via the planet.`, 2),
    ],
  });
}

/**
 * A new feed carrying the harbour story under a link of its own, met by text only (through the
 * band rows), then removed again: the merge it made, as the store lists it.
 */
async function probeTextMerge(store: Store) {
  const probe = (await store.addFeed({ feedUrl: "https://probe.example/feed", feedName: "Probe" })).feedId;
  try {
    await store.applyFeedUpdate(probe, {
      fetchState: {},
      posts: [story("probe", "https://probe.example/harbour", `${storyTexts.harbour} Seen again.`, 4)],
    });
    const [merge] = await store.storyMerges(1);
    return {
      merge: merge && { ...merge, copyFeedId: 0 },
      postCount: (await store.feedById(probe))?.postCount,
    };
  } finally {
    await store.removeFeed(probe);
  }
}

/** The stories other feeds carry as copies, as clients see them. */
async function stories(store: Store, location: string) {
  const ids = (await store.recentPosts({ limit: 5000, offset: 0, languageIds: null })).map((p) => p.postId);
  const duplicates = await runCaptured([
    "posts",
    "duplicates",
    "--json",
    "--limit",
    "1000",
    "--database",
    location,
  ]);
  assert.equal(duplicates.code, 0, duplicates.stderr);
  return {
    alsoIn: [...(await store.alsoIn(ids))].sort(([a], [b]) => a - b),
    duplicates: JSON.parse(duplicates.stdout) as unknown[],
  };
}

/** What a store holds beyond the operations' answers: admin view, secret, subscriptions, admin state. */
async function extras(store: Store) {
  const users = await store.admin.users();
  return {
    feeds: await store.adminFeeds(),
    secret: await store.installSecret(),
    websub: await store.websub.subscriptions(),
    users,
    credentials: await store.admin.userCredentials("ann"),
    sessions: await Promise.all(users.map((u) => store.admin.sessionCount(u.userId))),
    audit: await store.admin.auditLog({ limit: 1000 }),
    suggestions: await store.admin.suggestions(),
    failures: await store.admin.signInFailures("addr:x", 0),
    paused: [...(await store.admin.pausedFeeds())],
  };
}

/**
 * Copies `from` to `to` and requires every operation's answer (and the extras) to be the same on
 * both; answers both in one order with one clock, so the searches they record match too.
 */
async function copyAndCompare(
  from: string,
  to: string,
  catalog: AnswerCatalog,
  options: { acrossBackends: boolean; force?: boolean },
): Promise<void> {
  await migrateData({ from, to, batchSize: 100, force: options.force });
  const source = await openStore(from);
  const target = await openStore(to);
  try {
    const expected = await answerEveryOperation(source, catalog, NOW);
    const actual = await answerEveryOperation(target, catalog, NOW);
    assert.equal(actual.length, expected.length);
    expected.forEach((answer, i) => {
      assert.deepEqual(
        comparable(actual[i]!, options.acrossBackends),
        comparable(answer, options.acrossBackends),
        `${answer.operation}(${JSON.stringify(answer.args)}) from ${from.replace(/^postgres.*\//, "postgres:")}`,
      );
    });
    const held = await extras(source);
    assert.deepEqual(await extras(target), held);
    const carried = await stories(source, from);
    assert.ok(carried.duplicates.length >= 2 && carried.alsoIn.length >= 2, JSON.stringify(carried));
    assert.deepEqual(await stories(target, to), carried);
    const probed = await probeTextMerge(source);
    assert.equal(probed.merge?.mergedBy, "text");
    assert.deepEqual(await probeTextMerge(target), probed);
  } finally {
    await source.close();
    await target.close();
  }
}

describe("migrate-data", () => {
  it("has argument sets for every operation of the table", () => {
    assert.deepEqual(uncoveredOperations(), { missing: [], unknown: [] });
  });

  it("copies in every direction with every operation's answers and ids unchanged", async () => {
    const first = join(dir, "first.db");
    const seed = await openStore(first);
    await loadDemoData(seed, { posts: 600, now: NOW, seed: 3 });
    await seed.recordSearch("Open Source", NOW - DAY);
    await seed.recordSearch("data", NOW);
    await seed.addSmartCategory({ name: "Data news", query: "data OR news" });
    const [hubbed] = await seed.adminFeeds();
    await seed.websub.recordHubLink(
      hubbed!.feedId,
      { hubUrl: "https://hub.example/", topicUrl: hubbed!.feedUrl },
      NOW,
    );
    await seed.websub.updateSubscription(hubbed!.feedId, {
      state: "active",
      callbackId: "Zr7QWJ0kq9wX8uVd3mN1bHc5TfYgLs2A",
      secret: "copied-secret",
      leaseSeconds: 864_000,
      leaseExpiresAt: NOW + 864_000_000,
      verifiedAt: NOW,
    });
    await seed.installSecret();
    // Admin state: a user with a session, an audited change, a suggestion, a throttle entry, a pause.
    const ann = await seed.admin.addUser("cli:test", "ann", "scrypt$32768$8$1$c2FsdA==$a2V5", NOW);
    await seed.admin.createSession({ idHash: "hash-1", userId: ann.userId, csrfToken: "t", now: NOW });
    await seed.admin.addSuggestion(
      {
        url: "https://s.example/",
        feedUrl: "https://s.example/feed",
        feedTitle: "S",
        categoryId: null,
        note: "n",
        clientHash: "h",
      },
      NOW,
    );
    await seed.admin.recordSignInFailure(["addr:x"], NOW);
    await seed.admin.setFeedPaused("cli:test", hubbed!.feedId, true, NOW);
    await seedStories(seed);
    const catalog = await readAnswerCatalog(seed, NOW);
    // The corpus gives the comparisons something to differ on: posts, clicks, matches, languages.
    const answers = await answerEveryOperation(seed, catalog, NOW);
    const recent = answers.find((a) => a.operation === "getMostRecentPosts")!.records;
    assert.ok(recent.length > 500, `${recent.length} posts`);
    assert.ok(catalog.languageIds.length >= 5 && catalog.categoryIds.length >= 5, JSON.stringify(catalog));
    const languageData = answers.find((a) => a.operation === "getAggregateLanguageData")!.records;
    assert.ok(languageData.filter((l) => Number(l.postCount) > 0 && Number(l.clicks) > 0).length >= 5);
    const found = answers.filter((a) => a.operation === "search" && a.records.length > 0);
    assert.ok(found.length >= 60, `${found.length} searches find something`);
    const popular = answers.filter((a) => a.operation === "getMostPopularPosts" && a.records.length > 0);
    assert.ok(popular.length >= 20, `${popular.length} popular-post answers hold posts`);
    await seed.close();
    // COPY's text format escapes tabs, line breaks and backslashes, and reads a bare \N as null:
    // one post carries all of them (in its title between words, so that its search words stay
    // the same; a link ending in \N and a guid that is just \N).
    const raw = new Database(first);
    const special = raw
      .prepare(
        `UPDATE posts SET title = substr(title, 1, instr(title, ' ') - 1) || ? || substr(title, instr(title, ' ') + 1),
          link = link || ?, guid = ? WHERE id = (SELECT min(id) FROM posts WHERE instr(title, ' ') > 0)
          RETURNING title`,
      )
      .pluck()
      .get(" \t\\\r\n ", "?q=\\N", "\\N") as string;
    raw.close();
    assert.match(special, /\t\\\r\n/);

    const toPostgres = await server.createDatabase("migrated");
    const progress: string[] = [];
    const there = await migrateData({
      from: `sqlite:${first}`,
      to: toPostgres,
      batchSize: 100,
      onProgress: (table, copied, total) => progress.push(`${table} ${copied}/${total}`),
    });
    assert.equal(there.tables.find((t) => t.table === "posts")?.rows, recent.length);
    // The band rows page by their composite key, over many batches, none left behind.
    const counted = new Database(first, { readonly: true });
    const bands = counted.prepare("SELECT count(*) FROM story_bands").pluck().get() as number;
    counted.close();
    assert.ok(bands > 1000, `${bands} band rows`);
    assert.equal(there.tables.find((t) => t.table === "story_bands")?.rows, bands);
    assert.ok(progress.includes(`posts ${recent.length}/${recent.length}`), progress.join());
    // Every table's first report already names the total that is then copied.
    for (const { table, rows } of there.tables)
      assert.ok(progress.includes(`${table} 0/${rows}`), progress.join());
    // The target now holds data: the comparison copies again over it, forced.
    await copyAndCompare(first, toPostgres, catalog, { acrossBackends: true, force: true });

    await copyAndCompare(first, join(dir, "sqlite-copy.db"), catalog, { acrossBackends: false });
    const back = join(dir, "back.db");
    await copyAndCompare(toPostgres, back, catalog, { acrossBackends: true });
    await copyAndCompare(toPostgres, await server.createDatabase("pg_copy"), catalog, {
      acrossBackends: false,
    });

    // The copy's indexes, constraints and triggers are those of a new database, all of them on.
    const fresh = await server.createDatabase("fresh");
    await (await openStore(fresh)).close();
    const schema = await postgresSchema(fresh);
    assert.ok(schema.length > 30 && schema.some((line) => line.includes("posts_search_words")));
    assert.deepEqual(await postgresSchema(toPostgres), schema);

    // Sequences continue after the copied ids.
    for (const location of [toPostgres, back]) {
      const store = await openStore(location);
      try {
        const added = await store.addCategory("Brand new");
        assert.ok(added.categoryId > Math.max(...catalog.categoryIds));
      } finally {
        await store.close();
      }
    }
  });

  it("forced over a database with other data, answers as the source does", async () => {
    const source = join(dir, "forced-source.db");
    const s = await openStore(source);
    await loadDemoData(s, { posts: 200, now: NOW, seed: 5 });
    await seedStories(s);
    await s.installSecret();
    const catalog = await readAnswerCatalog(s, NOW);
    await s.close();
    for (const target of [join(dir, "forced-target.db"), await server.createDatabase("forced_target")]) {
      const t = await openStore(target);
      await loadDemoData(t, { posts: 300, now: NOW, seed: 9 });
      await t.close();
      await copyAndCompare(source, target, catalog, {
        acrossBackends: target.startsWith("postgres"),
        force: true,
      });
    }
  });

  it("leaves a PostgreSQL target as it was when the copy fails, indexes and triggers included", async () => {
    const source = join(dir, "broken-source.db");
    const s = await openStore(source);
    await loadDemoData(s, { posts: 300, now: NOW, seed: 2 });
    await s.close();
    const nul = join(dir, "nul-source.db");
    copyFileSync(source, nul);
    // A post of a language the source does not have: caught when the foreign keys come back.
    const raw = new Database(source);
    raw.pragma("foreign_keys = OFF");
    raw.prepare("UPDATE posts SET language_id = 999 WHERE id = (SELECT max(id) FROM posts)").run();
    raw.close();
    // A NUL in a post's text, which PostgreSQL's text refuses: caught by the COPY of the posts,
    // halfway through, while later batches are still being sent.
    const rawNul = new Database(nul);
    rawNul
      .prepare(
        "UPDATE posts SET excerpt = 'a' || char(0) || 'b' WHERE id = (SELECT min(id) + 150 FROM posts)",
      )
      .run();
    rawNul.close();
    const target = await server.createDatabase("kept_target");
    const t = await openStore(target);
    await loadDemoData(t, { posts: 80, now: NOW, seed: 4 });
    await t.close();
    const state = async () => {
      const store = await openStore(target);
      try {
        return {
          schema: await postgresSchema(target),
          recent: await store.recentPosts({ limit: 1000, offset: 0, languageIds: null }),
          languages: await store.aggregateLanguageData(NOW),
          feeds: await store.mostProlificFeeds({ since: NOW - 30 * DAY, limit: 100 }),
        };
      } finally {
        await store.close();
      }
    };
    const before = await state();
    assert.equal(before.recent.length, 80);
    assert.ok(before.schema.some((line) => line.includes("posts_search_words")));
    await assert.rejects(migrateData({ from: source, to: target, force: true }), /referenced row/);
    assert.deepEqual(await state(), before);
    await assert.rejects(
      migrateData({ from: nul, to: target, force: true, batchSize: 20 }),
      /NUL characters/,
    );
    assert.deepEqual(await state(), before);
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
    // Then where the time went: the posts' reading, encoding and sending, each index, statistics.
    for (const step of [
      /posts: read from the source: \d+\.\d s/,
      /posts encoded with their search vectors \(\d threads, summed\): \d+\.\d s/,
      /built posts_search_words: \d+\.\d s/,
      /ANALYZE: \d+\.\d s/,
    ]) {
      assert.match(done.stderr, new RegExp(`migrate-data: ${step.source}`));
    }
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
