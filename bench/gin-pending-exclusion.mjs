// Reproduces what made `k3 -the` by clicks answer posts holding "the" (pgflake34, bench/NOTES.md):
// while GIN moves its pending list into the entry tree (autovacuum, VACUUM, gin_clean_pending_list),
// a post's lexemes reach the tree one key at a time, so a bitmap scan meanwhile can find its `k3`
// and not yet its `the`, and hand it over for `k3 & !the` without a recheck. The script fills a GIN
// index's pending list, empties it in one session while another scans, and counts the rows each
// scan returned that hold the excluded word: through GIN alone, and with the query checked on the
// column too (what the search did since pgflake34), and with the posts holding the excluded word
// found positively and subtracted (what it does since pgexcl34: a positive lookup finds a moving
// row in the pending list or, once its pages are gone, wholly in the entry tree).
//
// Usage: node bench/gin-pending-exclusion.mjs [--rows 60000] [--rounds 3]
// A small server of its own under $TMPDIR (removed at the end).

import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startEmbeddedPostgres } from "./embedded-postgres-server.mjs";

const { values } = parseArgs({
  options: { rows: { type: "string", default: "60000" }, rounds: { type: "string", default: "3" } },
});
const rowCount = Number(values.rows);
const rounds = Number(values.rounds);
const pg = createRequire(new URL("../packages/feed-service/package.json", import.meta.url))("pg");

const server = await startEmbeddedPostgres(join(tmpdir(), `gin-pending-exclusion-${process.pid}`), {
  settings: ["shared_buffers=128MB", "autovacuum=off"],
  persistent: false,
});
const connect = async () => {
  const client = new pg.Client({ connectionString: server.urlFor("postgres") });
  await client.connect();
  return client;
};
const [writer, cleaner, reader] = [await connect(), await connect(), await connect()];
// One reader per kind of scan, all scanning while the list moves, so that each kind meets it alike.
const readers = { plain: reader, checked: await connect(), subtracted: await connect() };
try {
  // The search tiers test's words: "the" in 40% of the rows, k0..k12, w0..w96, r0..r1499.
  await writer.query(`DROP TABLE IF EXISTS t;
    CREATE TABLE t (id int PRIMARY KEY, v tsvector);
    CREATE INDEX t_v ON t USING GIN ((v || ''::tsvector)) WITH (gin_pending_list_limit = 1000000);
    INSERT INTO t SELECT i, ((CASE WHEN i % 5 < 2 THEN 'the:1 ' ELSE '' END) || 'w' || (i % 97) || ':2 k' || (i % 13)
      || ':3 r' || (i % 1500) || ':4')::tsvector FROM generate_series(1, ${rowCount}) i;
    SELECT gin_clean_pending_list('t_v');`);
  await writer.query("VACUUM ANALYZE t");
  for (const r of Object.values(readers)) await r.query("SET enable_seqscan = off");
  const query = "'k3' & !'the'";
  // As the search index: an expression of the column (the store's adds facets and pairs), so that
  // the column's own check is a filter on the rows GIN hands over.
  const plain = `SELECT count(*)::int AS n, count(*) FILTER (WHERE v @@ 'the')::int AS wrong FROM t
    WHERE (v || ''::tsvector) @@ $1::tsquery`;
  const checked = `${plain} AND v @@ $1::tsquery`;
  const subtracted = `${plain} AND t.id NOT IN (SELECT t.id FROM t WHERE (v || ''::tsvector) @@ $2::tsquery)`;
  const positive = "'k3' & 'the'";
  const kinds = {
    plain: [plain, [query]],
    checked: [checked, [query]],
    subtracted: [subtracted, [query, positive]],
  };
  const [{ n: exact }] = (await reader.query(plain, [query])).rows;
  console.log(
    `PostgreSQL ${(await reader.query("SHOW server_version")).rows[0].server_version}; ${rowCount} rows; ${exact} match ${query}`,
  );
  for (let round = 0; round < rounds; round++) {
    // Every row written again: its new version's entries go to the pending list.
    await writer.query("UPDATE t SET v = v || 'zz:9'::tsvector");
    let done = false;
    const cleaning = cleaner.query("SELECT gin_clean_pending_list('t_v') AS pages").then((r) => {
      done = true;
      return r.rows[0].pages;
    });
    const scans = Object.fromEntries(Object.keys(kinds).map((k) => [k, { runs: 0, bad: 0, wrong: 0 }]));
    await Promise.all(
      Object.keys(kinds).map(async (kind) => {
        while (!done) {
          const [row] = (await readers[kind].query(...kinds[kind])).rows;
          scans[kind].runs++;
          // Wrong: a row holding the excluded word, or a match left out.
          const wrong = row.wrong + Math.max(0, exact - row.n);
          if (wrong > 0) {
            scans[kind].bad++;
            scans[kind].wrong = Math.max(scans[kind].wrong, wrong);
          }
        }
      }),
    );
    const pages = await cleaning;
    console.log(
      `round ${round + 1}: ${pages} pending pages moved; GIN alone: ${scans.plain.bad} of ${scans.plain.runs} scans wrong (up to ${scans.plain.wrong} rows wrong); checked on the column: ${scans.checked.bad} of ${scans.checked.runs}; subtracted: ${scans.subtracted.bad} of ${scans.subtracted.runs}`,
    );
  }
} finally {
  for (const client of [writer, cleaner, ...Object.values(readers)]) await client.end();
  await server.stop();
}
