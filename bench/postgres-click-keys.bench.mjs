// What keying clicked_posts by feed and by language would cost each click on PostgreSQL: the
// structure that would let a search by clicks walk only the clicked posts of a `feed:` or `lang:`
// scope (spec §4 search operators; pgops34b's evaluation in bench/NOTES.md). On a shaped corpus,
// `record_click` (the one statement GET /click runs, postgres-click-schema.ts) is called from 8
// connections for --seconds, on posts drawn at random, each call from a new client hash (so each
// is counted), with clicked_posts as it is ("as is") and with feed_id and language_id on it and
// indexes (feed_id, clicks, id) and (language_id, clicks, id) kept by its trigger ("keyed"),
// alternating --rounds times; prints clicks per second and keyed / as is. It writes clicks and
// changes the schema for the keyed rounds (restored after): run it on a COPY of the corpus tree.
//
//   TMPDIR=<copy tree> BENCH_PG_SHARED_BUFFERS_MB=1024 node bench/postgres-click-keys.bench.mjs
//     --shape long-tail --posts 200000 [--seconds 10] [--rounds 3] [--keys migration33]
//
// --keys migration34 (pgclick34): "keyed" is PostgreSQL migration 34 as built
// (postgres-clicked-feeds.ts: feed_id on clicked_posts, the index by feed, the triggers), "as is"
// schema 33 (migration 33's SQL run again after the feed is dropped); the database is left as it
// came.
//
// --keys migration50: "keyed" is PostgreSQL migration 50 as built (postgres-counted-clicks.ts: a
// post's first click moves its counted words' block counts and gives its clicked_posts row its
// counted words; the clicks order's index carries them), "as is" schema 48 for clicks (those two
// triggers off, the index by (clicks, id) alone). The database must be at schema 50 with its
// common words counted (a store of this build opened on it, and recountCommonWords); it is left
// at schema 50, the counts made again from the posts at the end (as is rounds do not keep them).
//
// --keys migration54: "keyed" is PostgreSQL migration 54 as built (postgres-counted-clicks.ts: a
// first click moves its counted words' blocks by the words its clicked_posts row was just given,
// the trigger after posts_track_clicked), "as is" migration 50's function and trigger (its SQL run
// again). Both keep the counts; the database must be at schema 54, and is left at it.
//
// --keys migration59: "keyed" is PostgreSQL migration 59 as built (a first click takes its periods'
// counts off by its clicked_posts row's words; the blocks kept per language only), "as is" schema
// 54's upkeep (postgres-click-upkeeps.mjs: its functions and triggers, the all-languages block
// rows summed back). Both keep the counts, held at the end to a count from the posts (blocks and
// periods, rolled back); the database must be at schema 59, and is left at it.
//
// --pick first | clicked | any (default any): the posts clicked, drawn at random among those
// unclicked when the run starts (each taken once: every click is a post's first, the upkeep's
// worst case), among those clicked (no click is a first), or among all posts.
//
// --keys migration33 (pgclicks34d): "keyed" is PostgreSQL migration 33 as built
// (postgres-clicked-languages.ts: language_id and rank_vector on clicked_posts, the index by
// language, the triggers), "as is" the schema-31 clicked_posts; the database is left as it came.
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { clickUpkeeps, recountClickCounts } from "./postgres-click-upkeeps.mjs";
import { openShapePostgres } from "./shape-corpus.mjs";

const { values } = parseArgs({
  options: {
    shape: { type: "string", default: "long-tail" },
    posts: { type: "string", default: "200000" },
    seconds: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    keys: { type: "string", default: "feed,language" },
    pick: { type: "string", default: "any" },
  },
});
const { default: pg } = await import(
  createRequire(new URL("../packages/feed-service/package.json", import.meta.url)).resolve("pg")
);
const CONNECTIONS = 8;
const seconds = Number(values.seconds);

/** The trigger function as it is, and as it would be with the keys (the same upsert, two columns more). */
const keyed = `
ALTER TABLE clicked_posts ADD COLUMN feed_id integer, ADD COLUMN language_id integer;
UPDATE clicked_posts k SET feed_id = p.feed_id, language_id = p.language_id FROM posts p WHERE p.id = k.id;
CREATE INDEX clicked_posts_by_feed ON clicked_posts (feed_id, clicks, id);
CREATE INDEX clicked_posts_by_language ON clicked_posts (language_id, clicks, id);
CREATE OR REPLACE FUNCTION posts_track_clicked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.clicks > 0 THEN
    INSERT INTO clicked_posts AS k (id, clicks, post_date, category_id, feed_id, language_id)
      VALUES (NEW.id, NEW.clicks, NEW.post_date, NEW.category_id, NEW.feed_id, NEW.language_id)
      ON CONFLICT (id) DO UPDATE SET clicks = excluded.clicks, post_date = excluded.post_date,
        category_id = excluded.category_id, feed_id = excluded.feed_id, language_id = excluded.language_id;
  ELSE
    DELETE FROM clicked_posts WHERE id = NEW.id;
  END IF;
  RETURN NULL;
END $$;
ANALYZE clicked_posts;`;

const { trackClickedSchema14 } = await import(
  new URL("../packages/feed-service/dist/store/postgres/postgres-light-writes.js", import.meta.url).href
);
/** clicked_posts as migration 14 left it (schema 31): what migration 33 adds, taken away. */
const beforeMigration33 = `
DROP TRIGGER IF EXISTS clicked_posts_language ON clicked_posts;
DROP FUNCTION IF EXISTS clicked_posts_language();
DROP INDEX IF EXISTS clicked_posts_by_language;
ALTER TABLE clicked_posts DROP COLUMN IF EXISTS language_id, DROP COLUMN IF EXISTS rank_vector;
DROP TRIGGER IF EXISTS posts_track_clicked ON posts;
${trackClickedSchema14.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION")}
ANALYZE clicked_posts;`;

const corpus = await openShapePostgres(values.shape, Number(values.posts));
const admin = new pg.Client({ connectionString: corpus.url });
await admin.connect();
const migration33 = values.keys === "migration33";
const migration50 = values.keys === "migration50";
const migration54 = values.keys === "migration54";
const migration59 = values.keys === "migration59";
const upkeeps = await clickUpkeeps(new URL("../packages/feed-service/dist/", import.meta.url));
if (migration59) {
  const { rows: at59 } = await admin.query("SELECT 1 FROM schema_migrations WHERE version = 59");
  if (at59.length === 0) throw new Error("--keys migration59: the database is not at schema 59");
}
const counted = await import(
  new URL("../packages/feed-service/dist/store/postgres/postgres-counted-clicks.js", import.meta.url).href
);
/** Migration 50's click upkeep taken off (its tables stay; the counts are made again at the end). */
const beforeMigration50 = `DROP TRIGGER IF EXISTS posts_click_click_blocks ON posts;
  DROP TRIGGER IF EXISTS posts_track_clicked_blocks ON posts;
  DROP TRIGGER IF EXISTS clicked_posts_words ON clicked_posts;
  DROP INDEX IF EXISTS clicked_posts_by_clicks_then_id;
  CREATE INDEX clicked_posts_by_clicks_then_id ON clicked_posts (clicks, id);
  ANALYZE clicked_posts;`;
// The first click's trigger under migration 54's name (after posts_track_clicked), as built now.
const migration50Sql = `CREATE TRIGGER posts_track_clicked_blocks AFTER UPDATE OF clicks ON posts
    FOR EACH ROW WHEN ((OLD.clicks > 0) IS DISTINCT FROM (NEW.clicks > 0))
    EXECUTE FUNCTION posts_move_click_blocks();
  CREATE TRIGGER clicked_posts_words BEFORE INSERT ON clicked_posts
    FOR EACH ROW EXECUTE FUNCTION clicked_posts_words();
  DROP INDEX IF EXISTS clicked_posts_by_clicks_then_id;
  CREATE INDEX clicked_posts_by_clicks_then_id ON clicked_posts (clicks, id) INCLUDE (language_id, words);
  ANALYZE clicked_posts;`;
if (migration50) {
  const { rows: counted } = await admin.query(
    "SELECT count(*)::int AS n FROM counted_click_searches k JOIN counted_searches s ON s.id = k.search_id",
  );
  if (counted[0].n === 0)
    throw new Error("--keys migration50: no counted words with blocks (open a store of this build first)");
  await admin.query(beforeMigration50);
}
/** Migration 50's first-click function and trigger (its SQL again), and migration 54's. */
const beforeMigration54 = `DROP TRIGGER IF EXISTS posts_track_clicked_blocks ON posts; ${counted.countedClicksSchema}`;
if (migration54) {
  const { rows: at54 } = await admin.query("SELECT 1 FROM schema_migrations WHERE version = 54");
  if (at54.length === 0) throw new Error("--keys migration54: the database is not at schema 54");
  await admin.query(beforeMigration54);
}
const migration34 = values.keys === "migration34";
const at = (file) =>
  import(new URL(`../packages/feed-service/dist/store/postgres/${file}`, import.meta.url).href);
/** Schema 33: what migration 34 adds taken away, migration 33's functions and triggers put back. */
const beforeMigration34 = migration34
  ? `DROP TRIGGER IF EXISTS clicked_posts_feed ON clicked_posts; DROP FUNCTION IF EXISTS clicked_posts_feed();
    DROP TRIGGER IF EXISTS clicked_posts_language ON clicked_posts;
    DROP INDEX IF EXISTS clicked_posts_by_feed;
    ALTER TABLE clicked_posts DROP COLUMN IF EXISTS feed_id;
    ${(await at("postgres-clicked-languages.js")).clickedLanguagesSchema}`
  : "";
/** Whether the database came with migration 34 (it is left as it came). */
const came34 =
  migration34 &&
  (
    await admin.query(
      "SELECT 1 FROM information_schema.columns WHERE table_name = 'clicked_posts' AND column_name = 'feed_id'",
    )
  ).rows.length > 0;
if (came34) await admin.query(beforeMigration34);
/** Whether the database came with migration 33 (it is left as it came). */
const came33 =
  migration33 &&
  (
    await admin.query(
      "SELECT 1 FROM information_schema.columns WHERE table_name = 'clicked_posts' AND column_name = 'rank_vector'",
    )
  ).rows.length > 0;
if (came33) await admin.query(beforeMigration33);
const [{ definition }] = (
  await admin.query("SELECT pg_get_functiondef('posts_track_clicked'::regproc) AS definition")
).rows;
const asIs = migration59
  ? upkeeps.migration54
  : migration54
    ? beforeMigration54
    : migration50
      ? beforeMigration50
      : migration34
        ? beforeMigration34
        : migration33
          ? beforeMigration33
          : `DROP INDEX IF EXISTS clicked_posts_by_feed; DROP INDEX IF EXISTS clicked_posts_by_language;
  ALTER TABLE clicked_posts DROP COLUMN IF EXISTS feed_id, DROP COLUMN IF EXISTS language_id;
  ${definition};`;
const keyedSql = migration59
  ? upkeeps.migration59
  : migration54
    ? counted.firstClickWordsSchema
    : migration50
      ? migration50Sql
      : migration34
        ? (await at("postgres-clicked-feeds.js")).clickedFeedsSchema
        : migration33
          ? (
              await import(
                new URL(
                  "../packages/feed-service/dist/store/postgres/postgres-clicked-languages.js",
                  import.meta.url,
                ).href
              )
            ).clickedLanguagesSchema
          : keyed;

if (!["first", "clicked", "any"].includes(values.pick)) throw new Error(`--pick: first, clicked or any`);
/** The unclicked posts in a random order, each clicked once (--pick first), or the clicked (--pick clicked). */
const pool =
  values.pick === "any"
    ? null
    : (
        await admin.query(
          `SELECT id FROM posts WHERE ${values.pick === "first" ? "NOT clicks > 0" : "clicks > 0"} ORDER BY random()`,
        )
      ).rows.map((r) => r.id);
let taken = 0;

/** Clicks per second of `record_click` from CONNECTIONS clients for `seconds`. */
async function clicksPerSecond() {
  const { rows } = await admin.query("SELECT min(id) AS lo, max(id) AS hi FROM posts");
  const lo = Number(rows[0].lo);
  const span = Number(rows[0].hi) - lo + 1;
  const post = () =>
    pool === null
      ? lo + Math.floor(Math.random() * span)
      : values.pick === "first"
        ? pool[taken++]
        : pool[Math.floor(Math.random() * pool.length)];
  const clients = await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const c = new pg.Client({ connectionString: corpus.url });
      await c.connect();
      return c;
    }),
  );
  let done = 0;
  let n = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < end) {
        const at = Date.now();
        const id = post();
        if (id === undefined) throw new Error("--pick first: every unclicked post was clicked");
        await c.query("SELECT record_click($1, $2, $3, $4)", [
          id,
          `bench-${process.pid}-${n++}`,
          at,
          at - 600_000,
        ]);
        done++;
      }
    }),
  );
  await Promise.all(clients.map((c) => c.end()));
  return done / seconds;
}

try {
  console.log(
    `\nrecord_click from ${CONNECTIONS} connections, ${seconds} s a round, ${values.shape}-${values.posts} (PostgreSQL), posts: ${values.pick}${pool ? ` (${pool.length})` : ""}, keyed: ${migration59 ? "migration 59" : migration54 ? "migration 54" : migration50 ? "migration 50" : migration34 ? "migration 34" : migration33 ? "migration 33" : "feed and language"}`,
  );
  console.log("| round | as is (clicks/s) | keyed (clicks/s) | keyed / as is | load average |");
  console.log("|---|---|---|---|---|");
  await clicksPerSecond(); // warm-up: the posts' and roll-ups' pages into the cache
  for (let round = 1; round <= Number(values.rounds); round++) {
    const plain = await clicksPerSecond();
    await admin.query(keyedSql);
    const withKeys = await clicksPerSecond();
    await admin.query(asIs);
    console.log(
      `| ${round} | ${plain.toFixed(0)} | ${withKeys.toFixed(0)} | ${(withKeys / plain).toFixed(2)} | ${loadavg()[0].toFixed(1)} |`,
    );
  }
} finally {
  await admin
    .query(came33 || came34 || migration50 || migration54 || migration59 ? keyedSql : asIs)
    .catch(() => {});
  if (migration50) {
    // The counts again from the posts: the as is rounds' first clicks did not move them.
    const { countClickBlocks } = await at("postgres-counted-clicks.js");
    const { rows: ids } = await admin.query("SELECT search_id FROM counted_click_searches ORDER BY 1");
    await admin.query("BEGIN");
    await admin.query("LOCK TABLE posts IN SHARE MODE");
    await countClickBlocks(
      admin,
      ids.map((r) => r.search_id),
    );
    await admin.query("COMMIT");
  }
  if (migration54) {
    // Both upkeeps kept the counts: held to a count from the posts (made and rolled back).
    const { rows: ids } = await admin.query("SELECT search_id FROM counted_click_searches ORDER BY 1");
    await admin.query("BEGIN");
    await admin.query("LOCK TABLE posts IN SHARE MODE");
    await admin.query(
      "CREATE TEMP TABLE kept_blocks AS SELECT * FROM counted_click_blocks WHERE unclicked <> 0 OR clicked <> 0",
    );
    await admin.query("CREATE TEMP TABLE kept_words AS SELECT id, words FROM clicked_posts");
    await counted.countClickBlocks(
      admin,
      ids.map((r) => r.search_id),
    );
    const { rows: differ } = await admin.query(
      `WITH now AS (SELECT * FROM counted_click_blocks WHERE unclicked <> 0 OR clicked <> 0)
      SELECT (SELECT count(*) FROM ((SELECT * FROM kept_blocks EXCEPT ALL SELECT * FROM now)
          UNION ALL (SELECT * FROM now EXCEPT ALL SELECT * FROM kept_blocks)) d)::int AS blocks,
        (SELECT count(*) FROM kept_words k JOIN clicked_posts c USING (id) WHERE k.words IS DISTINCT FROM c.words)::int AS words,
        (SELECT count(*) FROM clicked_posts)::int AS clicked`,
    );
    await admin.query("ROLLBACK");
    console.log(
      `\nkept against a count from the posts: ${differ[0].blocks} block rows differ; ${differ[0].words} of ${differ[0].clicked} clicked posts' words differ`,
    );
  }
  if (migration59) {
    // Both upkeeps kept the counts: held to a count from the posts (postgres-click-upkeeps.mjs).
    const d = await recountClickCounts(admin, upkeeps);
    console.log(
      `\nrows of words no longer counted: ${d.stalePeriods} period rows, ${d.staleWords} clicked posts' words holding one`,
    );
    console.log(
      `\nkept against a count from the posts: ${d.blocks} of ${d.nblocks} block rows differ, ${d.periods} of ${d.nperiods} period entries differ; ${d.words} of ${d.clicked} clicked posts' words differ`,
    );
  }
  await admin.end();
  await corpus.stop();
}
