/**
 * The feed health migration on a real PostgreSQL database that older versions wrote: the same
 * outcome as on SQLite (sqlite-feed-health-schema.test.ts), a failing feed's `<stage>: <message>`
 * split into stage and message with the failure's time, a healthy feed's last fetch its last
 * success.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { openPostgresPool, rows } from "./postgres-connection.js";
import { addFeedHealthColumns } from "./postgres-feed-health-schema.js";
import { migratePostgres, postgresMigrations } from "./postgres-migrations.js";

let server: TestPostgres;
before(async () => {
  server = await startTestPostgres();
});
after(async () => {
  await server?.stop();
});

test("older feed rows get their last success, and their last error's time and stage", async () => {
  const version = postgresMigrations.find((m) => m.up === addFeedHealthColumns)!.version;
  const pool = await openPostgresPool({ url: await server.createDatabase("health") });
  try {
    await migratePostgres(pool, version - 1);
    const insert = `INSERT INTO feeds (url, name, name_key, language_id, last_fetched_at, error_count, last_error)
      VALUES ($1, $2, $3, 1, $4, $5, $6)`;
    await pool.query(insert, [
      "https://a.example/feed",
      "A",
      "a",
      1000,
      2,
      "fetch: The server answered HTTP 500.",
    ]);
    await pool.query(insert, ["https://b.example/feed", "B", "b", 2000, 0, null]);
    await pool.query(insert, ["https://c.example/feed", "C", "c", 3000, 1, "Something without a stage."]);
    assert.equal(await migratePostgres(pool, version), version);
    const got = await rows<Record<string, unknown>>(
      pool,
      `SELECT name, last_success_at, last_error_at, last_error_stage, last_error_code, last_error, error_count
        FROM feeds ORDER BY name`,
    );
    assert.deepEqual(
      got.map((r) => Object.values(r)),
      [
        ["A", null, 1000, "fetch", null, "The server answered HTTP 500.", 2],
        ["B", 2000, null, null, null, null, 0],
        ["C", null, null, null, null, "Something without a stage.", 1],
      ],
    );
  } finally {
    await pool.end();
  }
});
