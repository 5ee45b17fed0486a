// The benchmark corpus of the feed service: a SQLite database written once by the demo generator
// (the same code and store API that `feed-service demo` uses) and cached in the OS temp folder,
// never in git. Imports the BUILT package: run `npx tsc -b` first.
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const dist = new URL("../packages/feed-service/dist/", import.meta.url);
export const { openStore } = await import(new URL("store/open-store.js", dist).href);
export const { loadDemoData } = await import(new URL("demo/load-demo-data.js", dist).href);
const { latestSchemaVersion } = await import(new URL("store/sqlite/sqlite-migrations.js", dist).href);
const requireFromService = createRequire(new URL("../packages/feed-service/package.json", import.meta.url));

/**
 * Refuses a cached SQLite corpus at an older schema than this checkout's build: opening it would
 * migrate the shared file in place (some migrations rebuild the full-text index for many minutes)
 * and builds of the older schema, baselines included, could no longer open it.
 * BENCH_MIGRATE_CORPORA=1 lets this build migrate it.
 */
export function refuseOlderCorpus(path) {
  if (process.env.BENCH_MIGRATE_CORPORA === "1") return;
  const Database = requireFromService("better-sqlite3");
  const db = new Database(path, { readonly: true, fileMustExist: true });
  let version = 0;
  try {
    const known = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
      .get();
    if (known) version = db.prepare("SELECT max(version) AS v FROM schema_migrations").get().v ?? 0;
  } finally {
    db.close();
  }
  if (version < latestSchemaVersion) {
    throw new Error(
      `${path} is at schema ${version} and this build's is ${latestSchemaVersion}: opening it would migrate it in place, and builds of schema ${version} could not open it after. Copy it and point TMPDIR at the copy, or set BENCH_MIGRATE_CORPORA=1 to migrate this file.`,
    );
  }
}

/** Demo data is generated relative to "now"; the bench pins it so the cached file stays valid. */
export const corpusNow = Date.UTC(2026, 0, 15, 12, 0, 0);

/**
 * The generator's version, part of the cached files' names: a corpus written by an older generator
 * (or indexed by an older schema) is never reused. v2: Japanese written without spaces, Chinese and
 * Korean feeds, search index of the analyzer's tokens.
 */
export const corpusVersion = "v2";

/** Where the corpus of `posts` posts is cached (built or not yet). */
export const corpusPath = (posts) =>
  join(tmpdir(), "feed-toolkit-bench", `feed-service-${posts}-${corpusVersion}.db`);

/** Opens (building first when missing) the corpus of `posts` posts; returns the store and its path. */
export async function openCorpus(posts) {
  const path = corpusPath(posts);
  mkdirSync(dirname(path), { recursive: true });
  if (!existsSync(path)) {
    const partial = `${path}.building`;
    rmSync(partial, { force: true });
    rmSync(`${partial}-wal`, { force: true });
    rmSync(`${partial}-shm`, { force: true });
    rmSync(`${partial}-history`, { force: true });
    const started = Date.now();
    process.stderr.write(`building ${posts} posts into ${path} (once; cached for later runs)...\n`);
    const store = await openStore(partial);
    await loadDemoData(store, { posts, now: corpusNow });
    // The loader ends with FTS5 'optimize' (the index merged into one segment, as
    // `feed-service demo` leaves it), outside the timed part; the search bench says so.
    await store.close();
    renameSync(partial, path);
    // The search history is a file beside the database (schema 25): it moves with it.
    if (existsSync(`${partial}-history`)) renameSync(`${partial}-history`, `${path}-history`);
    process.stderr.write(`built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
  refuseOlderCorpus(path);
  return { store: await openStore(path), path };
}
