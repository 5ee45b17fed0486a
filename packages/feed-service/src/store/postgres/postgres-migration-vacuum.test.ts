/**
 * A migration that rewrites a table whole vacuums it once committed (postgres-migrations.ts,
 * `vacuumAfter`): migration 50 rewrites every clicked_posts row, and until a vacuum an index-only
 * walk of them reads each row's heap page. A run with nothing to apply vacuums nothing.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { openPostgresPool, rows } from "./postgres-connection.js";
import { latestPostgresVersion, migratePostgres } from "./postgres-migrations.js";

let server: TestPostgres;

before(async () => {
  server = await startTestPostgres();
});

after(async () => {
  await server?.stop();
});

describe("PostgreSQL migrations that rewrite a table", () => {
  it("vacuum clicked_posts after migration 50, once", async () => {
    const pool = await openPostgresPool({ url: await server.createDatabase("migration_vacuum") });
    const vacuums = async (): Promise<number> => {
      const [row] = await rows<{ n: string }>(
        pool,
        "SELECT vacuum_count AS n FROM pg_stat_user_tables WHERE relname = 'clicked_posts'",
      );
      return Number(row?.n ?? -1);
    };
    try {
      assert.equal(await migratePostgres(pool, 49), 49);
      const before49 = await vacuums();
      assert.equal(await migratePostgres(pool), latestPostgresVersion);
      assert.equal(await vacuums(), before49 + 1, "migration 50 vacuums clicked_posts once");
      assert.equal(await migratePostgres(pool), latestPostgresVersion);
      assert.equal(await vacuums(), before49 + 1, "nothing applied, nothing vacuumed");
    } finally {
      await pool.end();
    }
  });
});
