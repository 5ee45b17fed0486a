/**
 * migrate-data into PostgreSQL builds each GIN index of the loaded tables with
 * GIN_BUILD_MEMORY_KB of maintenance_work_mem for each of its processes and the server's
 * ginBuildWorkers (PostgreSQL 18 builds GIN in parallel, 17 does not) and each B-tree with at
 * least 1 GB (buildSettings, postgres-bulk-load.ts), on the staged table's connections and when
 * the posts load in place alike: an event trigger on the target notes the settings each CREATE
 * INDEX ran with.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { loadDemoData } from "../demo/load-demo-data.js";
import { openStore } from "../store/open-store.js";
import {
  buildSettings,
  GIN_BUILD_MEMORY_KB,
  GIN_BUILD_WORKERS,
  ginBuildWorkers,
} from "../store/postgres/postgres-bulk-load.js";
import { startTestPostgres, type TestPostgres } from "../test-support/test-postgres-server.js";
import { migrateData } from "./migrate-data.js";

const NOW = Date.parse("2026-01-10T12:00:00Z");
const dir = mkdtempSync(join(tmpdir(), "feed-migrate-build-memory-"));
let server: TestPostgres;
let source: string;

before(async () => {
  server = await startTestPostgres();
  source = join(dir, "source.db");
  const s = await openStore(source);
  await loadDemoData(s, { posts: 60, now: NOW, seed: 5 });
  await s.close();
});
after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const NOTE_BUILDS = `
CREATE SCHEMA probe;
CREATE TABLE probe.builds (seq serial, name text, method text, memory_kb bigint, workers int);
CREATE FUNCTION probe.note_build() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE c record;
BEGIN
  FOR c IN SELECT * FROM pg_event_trigger_ddl_commands() WHERE object_type = 'index' LOOP
    INSERT INTO probe.builds (name, method, memory_kb, workers)
      SELECT i.relname, am.amname, (SELECT setting::bigint FROM pg_settings WHERE name = 'maintenance_work_mem'),
        current_setting('max_parallel_maintenance_workers')::int
        FROM pg_class i JOIN pg_am am ON am.oid = i.relam WHERE i.oid = c.objid;
  END LOOP;
END $$;
CREATE EVENT TRIGGER note_build ON ddl_command_end WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION probe.note_build();`;

interface Build {
  name: string;
  method: string;
  kb: number;
  workers: number;
}

/** The builds of the copy's loaded tables (the last one of each index name), with their memory. */
async function copyBuilds(url: string, postsInPlace: boolean): Promise<Build[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(NOTE_BUILDS);
    await client.query("TRUNCATE probe.builds");
    await migrateData({ from: source, to: url, batchSize: 20, postsInPlace });
    const { rows } = await client.query<{ name: string; method: string; kb: string; workers: number }>(
      // The schema's own migrations build (and drop) indexes too: the copy's builds are the last of
      // each name, of an index of posts now or of the staged table (renamed since).
      `SELECT DISTINCT ON (name) name, method, memory_kb AS kb, workers FROM probe.builds
        WHERE name LIKE '%\\_migrating' OR name IN (SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = 'posts'::regclass)
        ORDER BY name, seq DESC`,
    );
    return rows.map((r) => ({ name: r.name, method: r.method, kb: Number(r.kb), workers: r.workers }));
  } finally {
    await client.query("DROP EVENT TRIGGER IF EXISTS note_build").catch(() => {});
    await client.end();
  }
}

/** The GIN builds' workers on the test server: GIN_BUILD_WORKERS on PostgreSQL 18 and later. */
async function serverGinWorkers(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const workers = await ginBuildWorkers(client);
    const { rows } = await client.query<{ v: number }>(
      "SELECT current_setting('server_version_num')::int AS v",
    );
    assert.equal(workers, rows[0]!.v >= 180_000 ? GIN_BUILD_WORKERS : 0);
    return workers;
  } finally {
    await client.end();
  }
}

function assertMemories(builds: Build[], names: RegExp, ginWorkers: number, btreeWorkers: number): void {
  const posts = builds.filter((b) => names.test(b.name));
  const gin = posts.filter((b) => b.method === "gin");
  const btree = posts.filter((b) => b.method === "btree");
  assert.ok(gin.length >= 3, JSON.stringify(builds));
  assert.ok(btree.length >= 3, JSON.stringify(builds));
  for (const b of gin) {
    assert.equal(b.kb, GIN_BUILD_MEMORY_KB * (ginWorkers + 1), JSON.stringify(b));
    assert.equal(b.workers, ginWorkers, JSON.stringify(b));
  }
  for (const b of btree) {
    assert.ok(b.kb >= 1_048_576, JSON.stringify(b));
    assert.equal(b.workers, btreeWorkers, JSON.stringify(b));
  }
}

describe("migrate-data's index builds' memory", () => {
  it("gives GIN builds GIN_BUILD_MEMORY_KB a process and B-trees at least 1 GB, whatever the server's setting", () => {
    assert.equal(
      buildSettings("CREATE INDEX a ON posts USING gin ((search_vector))", 4_194_304, 0, 0).memoryKb,
      GIN_BUILD_MEMORY_KB,
    );
    assert.deepEqual(buildSettings("CREATE INDEX a ON posts USING gin ((search_vector))", 4_194_304, 2, 0), {
      memoryKb: GIN_BUILD_MEMORY_KB * 3,
      workers: 2,
    });
    assert.deepEqual(buildSettings("CREATE INDEX a ON posts USING btree (post_date)", 65_536, 1, 2), {
      memoryKb: 1_048_576,
      workers: 2,
    });
    assert.equal(
      buildSettings("CREATE INDEX a ON posts USING btree (post_date)", 65_536, 0, 0).memoryKb,
      1_048_576,
    );
    assert.equal(
      buildSettings("CREATE INDEX a ON posts USING btree (post_date)", 4_194_304, 0, 0).memoryKb,
      4_194_304,
    );
    assert.equal(
      buildSettings("ALTER TABLE posts ADD CONSTRAINT k UNIQUE (feed_id, guid)", 65_536, 0, 0).memoryKb,
      1_048_576,
    );
  });

  it("builds the staged posts' GIN indexes with the server's GIN workers, their B-trees with 1 GB and none", async () => {
    const url = await server.createDatabase("build_memory_staged");
    const builds = await copyBuilds(url, false);
    assertMemories(builds, /^posts_.*_migrating$/, await serverGinWorkers(url), 0);
  });

  it("builds them so too when the posts load in place, the B-trees with two workers", async () => {
    const url = await server.createDatabase("build_memory_in_place");
    const builds = await copyBuilds(url, true);
    assertMemories(builds, /^posts_(?!.*_migrating$)/, await serverGinWorkers(url), 2);
  });
});
