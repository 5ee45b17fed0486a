/** Categories, smart categories and languages on PostgreSQL: the admin side of the catalogue. */
import type pg from "pg";
import { FeedServiceError } from "../../errors.js";
import { canonicalLanguageTag, filingTag, languageName } from "../language-tags.js";
import { smartCategoryFields } from "../smart-category-fields.js";
import type { CategoryRecord, LanguageRecord, SmartCategoryRecord } from "../store.js";
import { requireText } from "../text-checks.js";
import { categoryById, smartCategoryById } from "./postgres-catalog-queries.js";
import { changes, inTransaction, rows } from "./postgres-connection.js";

export async function addCategory(pool: pg.Pool, rawName: string): Promise<CategoryRecord> {
  const name = requireText(rawName, "category name", 200);
  return inTransaction(pool, async (sql) => {
    const [existing] = await rows<{ id: number }>(sql, "SELECT id FROM categories WHERE name_key = $1", [
      name.toLowerCase(),
    ]);
    if (existing) {
      throw new FeedServiceError(
        "FEED_CONFLICT",
        `A category named ${JSON.stringify(name)} already exists (id ${existing.id}).`,
      );
    }
    const [row] = await rows<{ id: number }>(
      sql,
      "INSERT INTO categories (name, name_key) VALUES ($1, $2) RETURNING id",
      [name, name.toLowerCase()],
    );
    return (await categoryById(sql, row!.id))!;
  });
}

export async function removeCategory(pool: pg.Pool, id: number): Promise<boolean> {
  // ON DELETE SET NULL clears the copies on feeds and posts in the same statement.
  return changes(pool, "DELETE FROM categories WHERE id = $1", [id]).then((n) => n > 0);
}

export async function addSmartCategory(
  pool: pg.Pool,
  args: { name: string; query: string; key?: string },
): Promise<SmartCategoryRecord> {
  const { name, query, key } = smartCategoryFields(args);
  return inTransaction(pool, async (sql) => {
    const [existing] = await rows<{ id: number }>(sql, "SELECT id FROM smart_categories WHERE key = $1", [
      key,
    ]);
    if (existing) {
      throw new FeedServiceError(
        "FEED_CONFLICT",
        `A smart category with key ${key} already exists (id ${existing.id}).`,
      );
    }
    const [row] = await rows<{ id: number }>(
      sql,
      "INSERT INTO smart_categories (key, name, name_key, query) VALUES ($1, $2, $3, $4) RETURNING id",
      [key, name, name.toLowerCase(), query],
    );
    return (await smartCategoryById(sql, row!.id))!;
  });
}

export async function removeSmartCategory(pool: pg.Pool, id: number): Promise<boolean> {
  return (await changes(pool, "DELETE FROM smart_categories WHERE id = $1", [id])) > 0;
}

/** The row a tag files under, created when new (same rule as SQLite: the filing tag is the code). */
export async function ensureLanguage(pool: pg.Pool, code: string, name?: string): Promise<LanguageRecord> {
  const tag = filingTag(canonicalLanguageTag(code));
  const key = tag.toLowerCase();
  const select = `SELECT id AS "languageId", name AS "languageName", code AS "languageCode" FROM languages WHERE filing_key = $1`;
  const [found] = await rows<LanguageRecord>(pool, select, [key]);
  if (found) return found;
  const display = name === undefined ? languageName(tag) : requireText(name, "language name", 100);
  await rows(
    pool,
    "INSERT INTO languages (code, filing_key, name) VALUES ($1, $2, $3) ON CONFLICT (filing_key) DO NOTHING",
    [tag, key, display],
  );
  return (await rows<LanguageRecord>(pool, select, [key]))[0]!;
}
