/**
 * Migration 13: language rows re-filed (language-refiling-plan.ts decides; this applies it).
 * Posts and feeds of absorbed rows move to the row that remains (the roll-up triggers move their
 * post_days rows with them), the absorbed rows go, and the per-language counts of the rows that
 * took others are counted again from the posts. The key column is renamed for what it now holds.
 */
import type Database from "better-sqlite3";
import { type LanguageRowBefore, planLanguageRefiling } from "../language-refiling-plan.js";

export function refileLanguages(db: Database.Database): void {
  db.exec("ALTER TABLE languages RENAME COLUMN subtag TO filing_key");
  const before = db
    .prepare("SELECT id, code, filing_key AS key, name FROM languages ORDER BY id")
    .all() as LanguageRowBefore[];
  const plan = planLanguageRefiling(before);
  const movePosts = db.prepare("UPDATE posts SET language_id = ? WHERE language_id = ?");
  const moveFeeds = db.prepare("UPDATE feeds SET language_id = ? WHERE language_id = ?");
  const remove = db.prepare("DELETE FROM languages WHERE id = ?");
  const recount = db.prepare(`UPDATE languages SET
      post_count = (SELECT count(*) FROM posts WHERE language_id = languages.id),
      clicks = (SELECT coalesce(sum(clicks), 0) FROM posts WHERE language_id = languages.id)
    WHERE id = ?`);
  for (const row of plan) {
    for (const absorbed of row.absorbs) {
      movePosts.run(row.id, absorbed);
      moveFeeds.run(row.id, absorbed);
      remove.run(absorbed);
    }
    if (row.absorbs.length > 0) recount.run(row.id);
  }
  // Keys out of the way first: a row's new key may be another row's old one.
  db.exec("UPDATE languages SET filing_key = '#' || id");
  const rename = db.prepare("UPDATE languages SET code = ?, filing_key = ?, name = ? WHERE id = ?");
  for (const row of plan) rename.run(row.code, row.key, row.name, row.id);
}
