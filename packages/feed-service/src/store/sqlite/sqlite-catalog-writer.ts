/** Categories, smart categories and languages on SQLite: the admin side of the catalogue. */
import type Database from "better-sqlite3";
import { FeedServiceError } from "../../errors.js";
import { canonicalLanguageTag, filingTag, languageName } from "../language-tags.js";
import { stderrProgress } from "../migration-progress.js";
import { smartCategoryFields } from "../smart-category-fields.js";
import type { CategoryRecord, LanguageRecord, SmartCategoryRecord } from "../store.js";
import { requireText } from "../text-checks.js";
import { categoryById, smartCategoryById } from "./sqlite-catalog-queries.js";
import type { StatementCache } from "./sqlite-connection.js";
import { syncCountedSearches } from "./sqlite-counted-searches.js";

export function addCategory(db: Database.Database, stmts: StatementCache, rawName: string): CategoryRecord {
  const name = requireText(rawName, "category name", 200);
  return db.transaction(() => {
    const existing = stmts.get("SELECT id FROM categories WHERE name_key = ?").get(name.toLowerCase()) as
      | { id: number }
      | undefined;
    if (existing) {
      throw new FeedServiceError(
        "FEED_CONFLICT",
        `A category named ${JSON.stringify(name)} already exists (id ${existing.id}).`,
      );
    }
    const { lastInsertRowid } = stmts
      .get("INSERT INTO categories (name, name_key) VALUES (?, ?)")
      .run(name, name.toLowerCase());
    return categoryById(stmts, Number(lastInsertRowid))!;
  })();
}

export function removeCategory(db: Database.Database, stmts: StatementCache, id: number): boolean {
  return db.transaction(() => {
    // Posts carry a copy of their feed's category; both lose it together.
    stmts.get("UPDATE posts SET category_id = NULL WHERE category_id = ?").run(id);
    stmts.get("UPDATE feeds SET category_id = NULL WHERE category_id = ?").run(id);
    return stmts.get("DELETE FROM categories WHERE id = ?").run(id).changes > 0;
  })();
}

export function addSmartCategory(
  db: Database.Database,
  stmts: StatementCache,
  args: { name: string; query: string; key?: string },
): SmartCategoryRecord {
  const { name, query, key } = smartCategoryFields(args);
  return db.transaction(() => {
    const existing = stmts.get("SELECT id FROM smart_categories WHERE key = ?").get(key) as
      | { id: number }
      | undefined;
    if (existing) {
      throw new FeedServiceError(
        "FEED_CONFLICT",
        `A smart category with key ${key} already exists (id ${existing.id}).`,
      );
    }
    const { lastInsertRowid } = stmts
      .get("INSERT INTO smart_categories (key, name, name_key, query) VALUES (?, ?, ?, ?)")
      .run(key, name, name.toLowerCase(), query);
    // Its query's matches counted per day now, for its deep pages (schema 29).
    syncCountedSearches(stmts, stderrProgress());
    return smartCategoryById(stmts, Number(lastInsertRowid))!;
  })();
}

export function removeSmartCategory(stmts: StatementCache, id: number): boolean {
  const removed = stmts.get("DELETE FROM smart_categories WHERE id = ?").run(id).changes > 0;
  // Its query's counts go, unless another smart category holds the same query.
  if (removed) syncCountedSearches(stmts);
  return removed;
}

/**
 * The row a tag files under (language-tags.ts: `fr-CA` -> `fr`, `pt-AO` -> `pt-PT`), created when
 * new with the filing tag as its code and that tag's English name, whichever tag came first.
 */
export function ensureLanguage(
  db: Database.Database,
  stmts: StatementCache,
  code: string,
  name?: string,
): LanguageRecord {
  const tag = filingTag(canonicalLanguageTag(code));
  const key = tag.toLowerCase();
  const select =
    "SELECT id AS languageId, name AS languageName, code AS languageCode FROM languages WHERE filing_key = ?";
  const found = stmts.get(select).get(key) as LanguageRecord | undefined;
  if (found) return found;
  const display = name === undefined ? languageName(tag) : requireText(name, "language name", 100);
  return db.transaction(() => {
    stmts
      .get("INSERT OR IGNORE INTO languages (code, filing_key, name) VALUES (?, ?, ?)")
      .run(tag, key, display);
    return stmts.get(select).get(key) as LanguageRecord;
  })();
}
