/**
 * The language re-filing migrations (SQLite 13, PostgreSQL 12) on a database filed the old way:
 * one row per primary subtag named by the first tag seen (`fr-CA` named French "Canadian
 * French"), plus two rows of one language under a legacy and a current code (`iw`, `he`). After
 * the migration each row is its filing tag with its English name, the two Hebrew rows are one
 * (posts, feeds, counts and clicks moved), English is still id 1, and new tags file the new way.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";
import { openStore } from "./open-store.js";
import { inTransaction } from "./postgres/postgres-connection.js";
import { refileLanguages } from "./postgres/postgres-language-refiling.js";
import type { Store } from "./store.js";

const T0 = Date.UTC(2026, 0, 10);

/** Old-style rows: [code, key, name], as the first tag seen made them. */
const oldRows: Array<[string, string, string]> = [
  ["fr-CA", "fr", "Canadian French"],
  ["es-MX", "es", "Mexican Spanish"],
  ["pt-BR", "pt", "Brazilian Portuguese"],
  ["zh-TW", "zh", "Traditional Chinese"],
  ["he", "he", "Hebrew"],
  ["iw", "iw", "Hebrew"],
  ["de-AT", "de", "Deutsch"],
];

/** Language id by old code, after inserting the old rows. */
type Ids = Record<string, number>;

interface Dialect {
  /** Runs SQL on the database outside the store. */
  exec(location: string, statements: string[]): Promise<void>;
  /** The version of the re-filing migration. */
  version: number;
  /**
   * Runs the re-filing again on a database put back to the old rows. Without it, the version's
   * row is deleted and the store re-runs it when opened, which only works while it is the latest
   * (migrations are applied by the highest version).
   */
  rerun?: (location: string) => Promise<void>;
}

const sqlite: Dialect = {
  version: 13,
  async exec(location, statements) {
    const db = new Database(location);
    try {
      for (const s of statements) db.exec(s);
    } finally {
      db.close();
    }
  },
};

const postgres: Dialect = {
  version: 12,
  async rerun(location) {
    const pool = new pg.Pool({ connectionString: location, max: 1 });
    try {
      await inTransaction(pool, (sql) => refileLanguages(sql));
    } finally {
      await pool.end();
    }
  },
  async exec(location, statements) {
    const pool = new pg.Pool({ connectionString: location, max: 1 });
    try {
      for (const s of statements) await pool.query(s);
    } finally {
      await pool.end();
    }
  },
};

/** Feeds and posts in the old rows, through the store; returns the post count per old code. */
async function seed(store: Store, ids: Ids): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [n, [code]] of oldRows.entries()) {
    const languageId = ids[code]!;
    const { feedId } = await store.addFeed({
      feedUrl: `https://f${n}.test/feed`,
      feedName: `Feed ${code}`,
      languageId,
    });
    const posts = Array.from({ length: n + 1 }, (_, i) => ({
      guid: `${code}-${i}`,
      link: `https://f${n}.test/${i}`,
      title: `Post ${i} of ${code}`,
      excerpt: "",
      content: "<p>text</p>",
      publishedAt: T0 - (n * 10 + i) * 60_000,
      updatedAt: null,
      seenAt: T0,
      languageId,
    }));
    await store.applyFeedUpdate(feedId, { fetchState: {}, posts });
    counts[code] = posts.length;
  }
  // One click on a post of each Hebrew row, so the merged row's clicks are the sum.
  for (const code of ["he", "iw"]) {
    const [post] = await store.recentPosts({ limit: 1, offset: 0, languageIds: [ids[code]!] });
    await store.insertClick(post!.postId, `client-${code}`, T0);
  }
  return counts;
}

function migrationSuite(backend: TestBackend, dialect: Dialect): void {
  it(`${backend.name}: re-files old rows, merging those of one language`, async () => {
    const db = await backend.newDatabase();
    try {
      await (await openStore(db.location)).close();
      // Old-style rows under the current column name, so that the current store can add feeds
      // and posts to them; then the database is put back to the version before re-filing.
      await dialect.exec(
        db.location,
        oldRows.map(
          ([code, key, name]) =>
            `INSERT INTO languages (code, filing_key, name) VALUES ('${code}', '${key}', '${name}')`,
        ),
      );
      let store = await openStore(db.location);
      const ids: Ids = Object.fromEntries(
        (await store.languages()).map((l) => [l.languageCode, l.languageId]),
      );
      const counts = await seed(store, ids);
      await store.close();
      await dialect.exec(db.location, [
        "ALTER TABLE languages RENAME COLUMN filing_key TO subtag",
        // Back to the version before re-filing: later migrations are taken again too.
        ...(dialect.rerun ? [] : [`DELETE FROM schema_migrations WHERE version >= ${dialect.version}`]),
      ]);
      await dialect.rerun?.(db.location);

      store = await openStore(db.location);
      try {
        const languages = await store.languages();
        assert.deepEqual(
          languages.map((l) => [l.languageId, l.languageCode, l.languageName]),
          [
            [1, "en", "English"],
            [2, "und", "Undetermined"],
            [ids["fr-CA"], "fr", "French"],
            [ids["es-MX"], "es", "Spanish"],
            [ids["pt-BR"], "pt-BR", "Brazilian Portuguese"],
            [ids["zh-TW"], "zh-Hant", "Traditional Chinese"],
            [ids.he, "he", "Hebrew"],
            // An administrator's name stays.
            [ids["de-AT"], "de", "Deutsch"],
          ],
        );
        const data = await store.aggregateLanguageData(T0);
        const hebrew = data.find((l) => l.languageId === ids.he)!;
        assert.deepEqual(
          [hebrew.feedCount, hebrew.postCount, hebrew.clicks],
          [2, counts.he! + counts.iw!, 2],
          "the iw row's feed, posts and click moved to he",
        );
        const french = data.find((l) => l.languageId === ids["fr-CA"])!;
        assert.deepEqual([french.feedCount, french.postCount, french.clicks], [1, counts["fr-CA"], 0]);
        const hebrewPosts = await store.recentPosts({ limit: 100, offset: 0, languageIds: [ids.he!] });
        assert.equal(hebrewPosts.length, counts.he! + counts.iw!);
        assert.equal((await store.recentPosts({ limit: 100, offset: 0, languageIds: [ids.iw!] })).length, 0);
        assert.equal((await store.feeds({ languageId: ids.he! })).length, 2);
        assert.equal(await store.languageById(ids.iw!), undefined);

        // New tags file the new way against the re-filed rows.
        assert.equal((await store.ensureLanguage("fr-FR")).languageId, ids["fr-CA"]);
        assert.equal((await store.ensureLanguage("iw")).languageId, ids.he);
        assert.equal((await store.ensureLanguage("zh-HK")).languageId, ids["zh-TW"]);
        assert.equal((await store.ensureLanguage("pt-PT")).languageCode, "pt-PT");
        assert.notEqual((await store.ensureLanguage("pt-PT")).languageId, ids["pt-BR"]);
      } finally {
        await store.close();
      }
    } finally {
      db.drop();
    }
  });
}

describe("language re-filing migration", () => {
  migrationSuite(sqliteBackend, sqlite);
  const pgBackend = postgresBackend();
  after(() => pgBackend.stop());
  migrationSuite(pgBackend, postgres);
});
