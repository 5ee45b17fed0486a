/** What readers do, on SQLite: clicks (deduplicated per client), searches, the install secret. */
import { randomBytes } from "node:crypto";
import type Database from "better-sqlite3";
import { FeedServiceError } from "../../errors.js";
import { searchTermsKey, searchTermsSpelling } from "../search-terms-key.js";
import type { ClickRow } from "../store.js";
import { rekeyClicked } from "./sqlite-clicked-index.js";
import type { StatementCache } from "./sqlite-connection.js";
import { addClickToLanguage } from "./sqlite-language-counts.js";

export function recordClick(
  db: Database.Database,
  stmts: StatementCache,
  postId: number,
  clientHash: string,
  at: number,
  dedupeWindowMs: number,
): { link: string } | undefined {
  // IMMEDIATE: the check and the insert hold the write lock together, so two processes serving
  // the same client cannot both count one click.
  const run = db.transaction(() => {
    const post = stmts.get("SELECT link FROM posts WHERE id = ?").get(postId) as { link: string } | undefined;
    if (!post) return undefined;
    const recent = stmts
      .get(
        "SELECT 1 FROM clicks WHERE post_id = ? AND client_hash = ? AND clicked_at > ? AND clicked_at <= ? LIMIT 1",
      )
      .get(postId, clientHash, at - dedupeWindowMs, at);
    if (!recent) {
      insertClickRow(stmts, postId, clientHash, at);
      rekeyClicked(stmts, postId, 1);
    }
    return { link: post.link };
  });
  return run.immediate();
}

/** The click's row and counters; its caller moves the post in the clicked posts' index (schema 23). */
function insertClickRow(stmts: StatementCache, postId: number, clientHash: string, at: number): void {
  stmts
    .get("INSERT INTO clicks (post_id, clicked_at, client_hash) VALUES (?, ?, ?)")
    .run(postId, at, clientHash);
  stmts.get("UPDATE posts SET clicks = clicks + 1 WHERE id = ?").run(postId);
  addClickToLanguage(stmts, postId);
}

/**
 * Adds clicks in one transaction, all or none (insertClick is a batch of one). Each clicked post
 * moves in the clicked posts' index once, by all its new clicks: FTS5 writes a segment per
 * transaction that changes it, so a transaction per click costs a commit and a segment each
 * (bench/NOTES.md, sqliteclk34).
 */
export function insertClicks(
  db: Database.Database,
  stmts: StatementCache,
  clicks: readonly ClickRow[],
): void {
  db.transaction(() => {
    const added = new Map<number, number>();
    for (const { postId, clientHash, at } of clicks) {
      if (!added.has(postId) && !stmts.get("SELECT 1 FROM posts WHERE id = ?").get(postId)) {
        throw new FeedServiceError("FEED_NOT_FOUND", `No post has id ${postId}.`);
      }
      insertClickRow(stmts, postId, clientHash, at);
      added.set(postId, (added.get(postId) ?? 0) + 1);
    }
    for (const [postId, n] of added) rekeyClicked(stmts, postId, n);
  })();
}

/** Records a search; `stmts` are the search history's (sqlite-search-history.ts). */
export function recordSearch(stmts: StatementCache, terms: string, at: number): void {
  const spelling = searchTermsSpelling(terms);
  if (spelling === "") return;
  // The latest spelling wins; an out-of-order older record only adds to the count.
  stmts
    .get(`INSERT INTO searches (terms_key, terms, search_count, last_searched) VALUES (?, ?, 1, ?)
      ON CONFLICT (terms_key) DO UPDATE SET
        search_count = search_count + 1,
        terms = CASE WHEN excluded.last_searched >= last_searched THEN excluded.terms ELSE terms END,
        last_searched = max(last_searched, excluded.last_searched)`)
    .run(searchTermsKey(terms), spelling, at);
}

const SECRET = "click_hash_secret";

export function installSecret(stmts: StatementCache): string {
  return installSetting(stmts, SECRET, () => randomBytes(32).toString("hex"));
}

/** A per-install setting, set from `propose` when it has none. */
export function installSetting(stmts: StatementCache, name: string, propose: () => string): string {
  const read = () =>
    stmts.get("SELECT value FROM settings WHERE name = ?").get(name) as { value: string } | undefined;
  const found = read();
  if (found) return found.value;
  // OR IGNORE: when two processes start together, the first one's value is the install's.
  stmts.get("INSERT OR IGNORE INTO settings (name, value) VALUES (?, ?)").run(name, propose());
  return read()!.value;
}
