/**
 * Migration 12: language rows re-filed (language-refiling-plan.ts decides; this applies it), as
 * SQLite's migration 13 does. Posts and feeds of absorbed rows move to the row that remains; the
 * roll-up triggers move their post_days rows (which hold the per-language counts here) and the
 * search index recomputes each moved post's language facet. The key column is renamed for what
 * it now holds.
 */
import { type LanguageRowBefore, planLanguageRefiling } from "../language-refiling-plan.js";
import { rows, type Sql } from "./postgres-connection.js";

export async function refileLanguages(sql: Sql): Promise<void> {
  await sql.query("ALTER TABLE languages RENAME COLUMN subtag TO filing_key");
  const before = await rows<LanguageRowBefore>(
    sql,
    "SELECT id, code, filing_key AS key, name FROM languages ORDER BY id",
  );
  const plan = planLanguageRefiling(before);
  for (const row of plan) {
    if (row.absorbs.length === 0) continue;
    await sql.query("UPDATE posts SET language_id = $1 WHERE language_id = ANY($2)", [row.id, row.absorbs]);
    await sql.query("UPDATE feeds SET language_id = $1 WHERE language_id = ANY($2)", [row.id, row.absorbs]);
    await sql.query("DELETE FROM languages WHERE id = ANY($1)", [row.absorbs]);
  }
  // Keys out of the way first: a row's new key may be another row's old one.
  await sql.query("UPDATE languages SET filing_key = '#' || id");
  for (const row of plan) {
    await sql.query("UPDATE languages SET code = $1, filing_key = $2, name = $3 WHERE id = $4", [
      row.code,
      row.key,
      row.name,
      row.id,
    ]);
  }
}
