// The click upkeep's SQL as of each PostgreSQL migration that changed a first click, for the
// benches that alternate them on one database (postgres-click-keys.bench.mjs --keys migration59,
// postgres-click-profile.mjs --upkeep): each puts its functions, triggers and rows in place over
// whichever came before. Both keep the counts exact; they differ in how a first click moves them.
const at = (dist, file) => import(new URL(`store/postgres/${file}`, dist).href);

export async function clickUpkeeps(dist) {
  const counted = await at(dist, "postgres-counted-clicks.js");
  const ranges = await at(dist, "postgres-counted-click-ranges.js");
  const rows66 = await at(dist, "postgres-click-count-rows.js").catch(() => null);
  const lexemes67 = await at(dist, "postgres-clicked-lexemes.js").catch(() => null);
  /** Before migration 67: no clicked post's lexemes, nor their triggers (a first click writes none). */
  const before67 = `DROP TRIGGER IF EXISTS clicked_lexemes_insert ON clicked_posts;
    DROP TRIGGER IF EXISTS clicked_lexemes_delete ON clicked_posts;
    DROP TRIGGER IF EXISTS clicked_lexemes_truncate ON clicked_posts;
    DROP TRIGGER IF EXISTS clicked_lexemes_reword ON posts;
    DROP TABLE IF EXISTS clicked_lexemes;`;
  /** Before migration 66 (which keeps the blocks in the period rows, counted_click_blocks a view of
   * them): the blocks a table of their own again, filled from the view, and the blocks' and
   * periods' own triggers of migrations 50 and 51 (the later upkeeps below replace their first
   * clicks). The period rows keep 66's two columns, unread and unwritten by these upkeeps; 66's
   * SQL (`current`) fills them again from the table. */
  const before66 = rows66
    ? `${before67} DO $$ BEGIN
        IF EXISTS (SELECT 1 FROM pg_class WHERE oid = to_regclass('counted_click_blocks') AND relkind = 'v') THEN
          CREATE TABLE counted_click_blocks_kept AS SELECT * FROM counted_click_blocks;
          DROP VIEW counted_click_blocks;
          ALTER TABLE counted_click_blocks_kept RENAME TO counted_click_blocks;
          ALTER TABLE counted_click_blocks ADD PRIMARY KEY (search_id, language_id, block),
            ADD FOREIGN KEY (search_id) REFERENCES counted_searches (id) ON DELETE CASCADE,
            ALTER unclicked SET NOT NULL, ALTER clicked SET NOT NULL;
        END IF;
      END $$;
      DROP TRIGGER IF EXISTS posts_count_click_counts ON posts;
      DROP TRIGGER IF EXISTS posts_uncount_click_counts ON posts;
      DROP TRIGGER IF EXISTS posts_move_click_counts ON posts;
      DROP TRIGGER IF EXISTS posts_track_clicked_counts ON posts;
      ${ranges.countedClickRangesSchema} ${counted.countedClicksSchema} ${counted.firstClickWordsSchema}
      ${ranges.firstClickPeriodsSchema} ${counted.perLanguageBlocksSchema}`
    : before67;
  /** Schema 54 (main before 59): migration 51's period trigger and function, migration 50's block
   * functions with 54's first click, and the all-languages block rows summed from the languages'. */
  const migration54 = `${before66} DROP TRIGGER IF EXISTS posts_track_clicked_counts ON posts;
    DROP TRIGGER IF EXISTS posts_track_clicked_periods ON posts; ${ranges.countedClickRangesSchema}
    DROP TRIGGER IF EXISTS posts_track_clicked_blocks ON posts; ${counted.countedClicksSchema} ${counted.firstClickWordsSchema}
    INSERT INTO counted_click_blocks (search_id, language_id, block, unclicked, clicked)
      SELECT search_id, 0, block, sum(unclicked), sum(clicked) FROM counted_click_blocks WHERE language_id <> 0 GROUP BY 1, 3
      ON CONFLICT DO NOTHING;`;
  /** Migration 59: the periods by the clicked_posts row's words, the blocks per language only,
   * each in a trigger of its own (migration 54's for the blocks; 63's one trigger dropped). */
  // Before migration 64 a clicked_posts row's words were matched by each counted query's text, cast.
  const byCast = counted.clickedPostsWordsByCast ?? "";
  const migration59 = `${before66} DROP TRIGGER IF EXISTS posts_track_clicked_counts ON posts; ${counted.firstClickWordsSchema}
    ${ranges.firstClickPeriodsSchema} ${counted.perLanguageBlocksSchema} ${byCast}`;
  /** Migration 63: one trigger for both when a post's clicked state changes (none before it). */
  const merged = await at(dist, "postgres-clicked-state-counts.js").catch(() => null);
  const migration63 = merged && `${before66} ${merged.clickedStateCountsSchema} ${byCast}`;
  /** Migration 64: 63's trigger, the clicked_posts row's words by each counted search's stored tsquery. */
  const migration64 =
    counted.storedQueriesSchema &&
    `${before66} ${merged.clickedStateCountsSchema} ${counted.storedQueriesSchema}`;
  /** Migration 66: the blocks in the period rows, one statement per event for both (64's words). */
  const migration66 = rows66 && `${before67} ${counted.storedQueriesSchema} ${rows66.clickCountRowsSchema}`;
  /** Migration 67: 66's, and every clicked post's lexemes (a first click writes its row and GIN entries). */
  const migration67 =
    lexemes67 &&
    `${counted.storedQueriesSchema} ${rows66.clickCountRowsSchema} ${lexemes67.clickedLexemesSchema}`;
  /** This build's own. */
  const current = migration67 ?? migration66 ?? migration64;
  return {
    migration54,
    migration59,
    migration63,
    migration64,
    migration66,
    migration67,
    current,
    counted,
    ranges,
  };
}

/**
 * After an upkeep is put in place: the tables whose rows a switch between the shapes before and
 * after migration 66 rewrote vacuumed (their dead rows gone, each page's free space for the next
 * run's heap-only updates) and analysed.
 */
export async function settleClickCounts(client) {
  const { rows } = await client.query(
    `SELECT relname FROM pg_class WHERE relname IN ('counted_click_blocks', 'counted_click_periods')
      AND relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY 1`,
  );
  for (const { relname } of rows) await client.query(`VACUUM (ANALYZE) ${relname}`);
}

/**
 * The kept counts of the counted words (click blocks, period entries, clicked posts' words) held
 * to a count from the posts, made and rolled back. A word no longer counted (the corpus's words
 * recounted at an open) leaves rows no read joins and its id in older clicked_posts rows until
 * the next count: left out, and counted apart.
 */
export async function recountClickCounts(admin, { counted, ranges }) {
  const { rows: stale } = await admin.query(
    `SELECT (SELECT count(*) FROM counted_click_periods WHERE search_id NOT IN (SELECT id FROM counted_searches))::int AS periods,
      (SELECT count(*) FROM clicked_posts WHERE NOT words <@ ARRAY(SELECT id FROM counted_searches))::int AS words`,
  );
  const { rows: ids } = await admin.query("SELECT search_id FROM counted_click_searches ORDER BY 1");
  const { rows: pids } = await admin.query("SELECT search_id FROM counted_period_searches ORDER BY 1");
  await admin.query("BEGIN");
  try {
    await admin.query("LOCK TABLE posts IN SHARE MODE");
    await admin.query(
      `CREATE TEMP TABLE kept_blocks AS SELECT * FROM counted_click_blocks WHERE unclicked <> 0 OR clicked <> 0;
      CREATE TEMP TABLE kept_periods AS SELECT b.search_id, b.language_id, b.block, g.period, b.unclicked[g.period] AS n
        FROM counted_click_periods b CROSS JOIN LATERAL generate_series(array_lower(b.unclicked, 1), array_upper(b.unclicked, 1)) g (period)
        WHERE b.unclicked[g.period] <> 0 AND b.search_id IN (SELECT id FROM counted_searches);
      CREATE TEMP TABLE kept_words AS SELECT id,
        ARRAY(SELECT w FROM unnest(words) w WHERE w IN (SELECT id FROM counted_searches) ORDER BY w) AS words FROM clicked_posts`,
    );
    await counted.countClickBlocks(
      admin,
      ids.map((r) => r.search_id),
    );
    await ranges.countClickPeriods(
      admin,
      pids.map((r) => r.search_id),
    );
    const { rows: differ } = await admin.query(
      `WITH now AS (SELECT * FROM counted_click_blocks WHERE unclicked <> 0 OR clicked <> 0),
        nowp AS (SELECT b.search_id, b.language_id, b.block, g.period, b.unclicked[g.period] AS n
          FROM counted_click_periods b CROSS JOIN LATERAL generate_series(array_lower(b.unclicked, 1), array_upper(b.unclicked, 1)) g (period)
          WHERE b.unclicked[g.period] <> 0 AND b.search_id IN (SELECT id FROM counted_searches))
      SELECT (SELECT count(*) FROM ((SELECT * FROM kept_blocks EXCEPT ALL SELECT * FROM now)
          UNION ALL (SELECT * FROM now EXCEPT ALL SELECT * FROM kept_blocks)) d)::int AS blocks,
        (SELECT count(*) FROM ((SELECT * FROM kept_periods EXCEPT ALL SELECT * FROM nowp)
          UNION ALL (SELECT * FROM nowp EXCEPT ALL SELECT * FROM kept_periods)) d)::int AS periods,
        (SELECT count(*) FROM kept_blocks)::int AS nblocks, (SELECT count(*) FROM kept_periods)::int AS nperiods,
        (SELECT count(*) FROM kept_words k JOIN clicked_posts c USING (id) WHERE k.words IS DISTINCT FROM
          ARRAY(SELECT w FROM unnest(c.words) w WHERE w IN (SELECT id FROM counted_searches) ORDER BY w))::int AS words,
        (SELECT count(*) FROM clicked_posts)::int AS clicked`,
    );
    return { ...differ[0], stalePeriods: stale[0].periods, staleWords: stale[0].words };
  } finally {
    await admin.query("ROLLBACK");
  }
}
