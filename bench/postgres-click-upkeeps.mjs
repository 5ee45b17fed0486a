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
  const migration54 = `DROP TRIGGER IF EXISTS posts_track_clicked_periods ON posts; ${ranges.countedClickRangesSchema}
    DROP TRIGGER IF EXISTS posts_track_clicked_blocks ON posts; ${counted.countedClicksSchema} ${counted.firstClickWordsSchema}
    INSERT INTO counted_click_blocks (search_id, language_id, block, unclicked, clicked)
      SELECT search_id, 0, block, sum(unclicked), sum(clicked) FROM counted_click_blocks WHERE language_id <> 0 GROUP BY 1, 3
      ON CONFLICT DO NOTHING;`;
  /** Migration 59: the periods by the clicked_posts row's words, the blocks per language only. */
  const migration59 = `${ranges.firstClickPeriodsSchema} ${counted.perLanguageBlocksSchema}`;
  return { migration54, migration59, counted, ranges };
}
