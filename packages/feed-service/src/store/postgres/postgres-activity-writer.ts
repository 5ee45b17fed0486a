/** What readers do, on PostgreSQL: clicks (deduplicated per client), searches, the install secret. */
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { FeedServiceError } from "../../errors.js";
import { searchTermsKey, searchTermsSpelling } from "../search-terms-key.js";
import type { ClickRow } from "../store.js";
import { inTransaction, rows, type Sql } from "./postgres-connection.js";

async function insertClickRow(sql: Sql, postId: number, clientHash: string, at: number): Promise<void> {
  await sql.query("INSERT INTO clicks (post_id, clicked_at, client_hash) VALUES ($1, $2, $3)", [
    postId,
    at,
    clientHash,
  ]);
  await sql.query("UPDATE posts SET clicks = clicks + 1 WHERE id = $1", [postId]);
}

/**
 * Counts a click unless the client clicked the post within the window; the post's link, or
 * undefined when no post has that id. One statement, one round trip (`record_click`,
 * postgres-click-schema.ts): the lock, the check, the insert and the count were four.
 */
export async function recordClick(
  pool: pg.Pool,
  postId: number,
  clientHash: string,
  at: number,
  dedupeWindowMs: number,
): Promise<{ link: string } | undefined> {
  const [found] = await rows<{ link: string | null }>(pool, "SELECT record_click($1, $2, $3, $4) AS link", [
    postId,
    clientHash,
    at,
    at - dedupeWindowMs,
  ]);
  return found?.link == null ? undefined : { link: found.link };
}

/** Adds clicks in one transaction, all or none (insertClick is a batch of one). */
export async function insertClicks(pool: pg.Pool, clicks: readonly ClickRow[]): Promise<void> {
  return inTransaction(pool, async (sql) => {
    const seen = new Set<number>();
    for (const { postId, clientHash, at } of clicks) {
      if (!seen.has(postId)) {
        if ((await rows(sql, "SELECT 1 FROM posts WHERE id = $1 FOR UPDATE", [postId])).length === 0) {
          throw new FeedServiceError("FEED_NOT_FOUND", `No post has id ${postId}.`);
        }
        seen.add(postId);
      }
      await insertClickRow(sql, postId, clientHash, at);
    }
  });
}

export async function recordSearch(pool: pg.Pool, terms: string, at: number): Promise<void> {
  // PostgreSQL text cannot hold NUL; SQLite keeps it. Dropping it changes no search word.
  const spelling = searchTermsSpelling(terms.replaceAll("\u0000", ""));
  if (spelling === "") return;
  await rows(
    pool,
    `INSERT INTO searches (terms_key, terms, search_count, last_searched) VALUES ($1, $2, 1, $3)
      ON CONFLICT (terms_key) DO UPDATE SET
        search_count = searches.search_count + 1,
        terms = CASE WHEN excluded.last_searched >= searches.last_searched THEN excluded.terms ELSE searches.terms END,
        last_searched = greatest(searches.last_searched, excluded.last_searched)`,
    [searchTermsKey(spelling), spelling, at],
  );
}

const SECRET = "click_hash_secret";

export function installSecret(pool: pg.Pool): Promise<string> {
  return installSetting(pool, SECRET, () => randomBytes(32).toString("hex"));
}

/** A per-install setting, set from `propose` when it has none. */
export async function installSetting(pool: pg.Pool, name: string, propose: () => string): Promise<string> {
  const read = async () =>
    (await rows<{ value: string }>(pool, "SELECT value FROM settings WHERE name = $1", [name]))[0]?.value;
  const found = await read();
  if (found !== undefined) return found;
  // DO NOTHING: when two processes start together, the first one's value is the install's.
  await rows(pool, "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [
    name,
    propose(),
  ]);
  return (await read())!;
}
