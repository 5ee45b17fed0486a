// The click upkeep's SQL as of each PostgreSQL migration that changed a first click, for the
// benches that alternate them on one database (postgres-click-keys.bench.mjs --keys migration59,
// postgres-click-profile.mjs --upkeep): each puts its functions, triggers and rows in place over
// whichever came before. Both keep the counts exact; they differ in how a first click moves them.
const at = (dist, file) => import(new URL(`store/postgres/${file}`, dist).href);

export async function clickUpkeeps(dist) {
  const counted = await at(dist, "postgres-counted-clicks.js");
  const ranges = await at(dist, "postgres-counted-click-ranges.js");
  /** Schema 54 (main before 59): migration 51's period trigger and function, migration 50's block
   * functions with 54's first click, and the all-languages block rows summed from the languages'. */
  const migration54 = `DROP TRIGGER IF EXISTS posts_track_clicked_counts ON posts;
    DROP TRIGGER IF EXISTS posts_track_clicked_periods ON posts; ${ranges.countedClickRangesSchema}
    DROP TRIGGER IF EXISTS posts_track_clicked_blocks ON posts; ${counted.countedClicksSchema} ${counted.firstClickWordsSchema}
    INSERT INTO counted_click_blocks (search_id, language_id, block, unclicked, clicked)
      SELECT search_id, 0, block, sum(unclicked), sum(clicked) FROM counted_click_blocks WHERE language_id <> 0 GROUP BY 1, 3
      ON CONFLICT DO NOTHING;`;
  /** Migration 59: the periods by the clicked_posts row's words, the blocks per language only,
   * each in a trigger of its own (migration 54's for the blocks; 63's one trigger dropped). */
  // Before migration 64 a clicked_posts row's words were matched by each counted query's text, cast.
  const byCast = counted.clickedPostsWordsByCast ?? "";
  const migration59 = `DROP TRIGGER IF EXISTS posts_track_clicked_counts ON posts; ${counted.firstClickWordsSchema}
    ${ranges.firstClickPeriodsSchema} ${counted.perLanguageBlocksSchema} ${byCast}`;
  /** Migration 63: one trigger for both when a post's clicked state changes (none before it). */
  const merged = await at(dist, "postgres-clicked-state-counts.js").catch(() => null);
  const migration63 = merged && `${merged.clickedStateCountsSchema} ${byCast}`;
  /** Migration 64: 63's trigger, the clicked_posts row's words by each counted search's stored tsquery. */
  const migration64 =
    counted.storedQueriesSchema && `${merged.clickedStateCountsSchema} ${counted.storedQueriesSchema}`;
  return { migration54, migration59, migration63, migration64, counted, ranges };
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
