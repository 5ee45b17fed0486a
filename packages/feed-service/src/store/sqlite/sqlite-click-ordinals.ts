/**
 * Each click's ordinal among its post's clicks (migration 27): consecutive integers in the
 * post's click order (clicked_at, id), oldest lowest, kept in `clicks_by_post_time` as
 * (post_id, clicked_at, ordinal). A post's clicks at or after `since` are then the newest
 * click's ordinal minus the ordinal of the first click at or after `since`, plus one: two seeks
 * of that index instead of stepping through the post's clicks (the most popular posts past the
 * consecutive levels, sqlite-popular-posts.ts).
 *
 * Only the differences between a post's ordinals mean anything, not where they start, so a click
 * at either end of a post's clicks moves no other click: a click appended at now (nearly every
 * click) takes the newest ordinal plus one (one more write of its row), a click older than all
 * takes the oldest minus one, and deleting the oldest or the newest (a post's clicks deleted before
 * it, oldest first) leaves the rest consecutive. A click inserted or deleted between two others renumbers the side of it
 * holding fewer clicks (rare: clicks are recorded as they happen). A click whose post or time
 * is rewritten (a copy over an existing row) renumbers both posts' clicks.
 */
import type Database from "better-sqlite3";
import type { MigrationProgress } from "../migration-progress.js";
import { byClickPostRanges } from "./sqlite-click-levels.js";

const index = "CREATE INDEX clicks_by_post_time ON clicks (post_id, clicked_at, ordinal)";

// The post's newest and oldest ordinals other than the row being written (its ordinal is not set
// yet on insert). Within one instant ordinals follow ids, so (clicked_at, ordinal) is the order.
const newest = (post: string, self: string) => `(SELECT k.ordinal FROM clicks k
    WHERE k.post_id = ${post} AND k.id <> ${self} ORDER BY k.clicked_at DESC, k.ordinal DESC LIMIT 1)`;
const oldest = (post: string, self: string) => `(SELECT k.ordinal FROM clicks k
    WHERE k.post_id = ${post} AND k.id <> ${self} ORDER BY k.clicked_at, k.ordinal LIMIT 1)`;
// The click just before / after a click in its post's order.
const before = (row: string) => `(SELECT k.ordinal FROM clicks k
    WHERE k.post_id = ${row}.post_id AND (k.clicked_at, k.id) < (${row}.clicked_at, ${row}.id)
    ORDER BY k.clicked_at DESC, k.ordinal DESC LIMIT 1)`;
const after = (row: string) => `(SELECT k.ordinal FROM clicks k
    WHERE k.post_id = ${row}.post_id AND (k.clicked_at, k.id) > (${row}.clicked_at, ${row}.id)
    ORDER BY k.clicked_at, k.ordinal LIMIT 1)`;
const newerThan = (row: string) =>
  `post_id = ${row}.post_id AND (clicked_at, id) > (${row}.clicked_at, ${row}.id)`;
const olderThan = (row: string) =>
  `post_id = ${row}.post_id AND (clicked_at, id) < (${row}.clicked_at, ${row}.id)`;

// Every click of a post numbered from its order; for the rare rewrite of a click's post or time.
const renumber = (post: string) => `UPDATE clicks SET ordinal = (SELECT count(*) FROM clicks k
    WHERE k.post_id = clicks.post_id AND (k.clicked_at, k.id) <= (clicks.clicked_at, clicks.id))
  WHERE post_id = ${post};`;

const triggers = `
-- Appended (no newer click of the post): the newest ordinal plus one, unless the insert gave it.
-- Written here, not in the store's insert: the store also writes databases not yet at schema 27.
CREATE TRIGGER clicks_ordinal_append AFTER INSERT ON clicks
WHEN new.ordinal IS NULL AND NOT EXISTS (SELECT 1 FROM clicks WHERE ${newerThan("new")}) BEGIN
  UPDATE clicks SET ordinal = coalesce(${before("new")} + 1, 1) WHERE id = new.id;
END;
-- Between two others, or older than all: the newer side moves up when it holds no more clicks
-- than the older side (newest - before <= before - oldest + 1), else the older side moves down;
-- with no click before it, nothing moves. Then the click takes its place (any ordinal the insert
-- gave it is replaced). The older side's statement goes first: moving it leaves the second
-- statement's test false, whereas moving the newer side first could make the older side's test
-- true when both sides hold as many clicks (both would move).
CREATE TRIGGER clicks_ordinal_insert AFTER INSERT ON clicks
WHEN EXISTS (SELECT 1 FROM clicks WHERE ${newerThan("new")}) BEGIN
  UPDATE clicks SET ordinal = ordinal - 1 WHERE ${olderThan("new")}
    AND ${newest("new.post_id", "new.id")} - ${before("new")} > ${before("new")} - ${oldest("new.post_id", "new.id")} + 1;
  UPDATE clicks SET ordinal = ordinal + 1 WHERE ${newerThan("new")}
    AND ${newest("new.post_id", "new.id")} - ${before("new")} <= ${before("new")} - ${oldest("new.post_id", "new.id")} + 1;
  UPDATE clicks SET ordinal = coalesce(${before("new")} + 1, ${after("new")} - 1, 1) WHERE id = new.id;
END;
-- A click deleted between two others: the side holding fewer clicks closes the gap. The oldest or
-- newest deleted leaves an empty side to move.
CREATE TRIGGER clicks_ordinal_delete AFTER DELETE ON clicks BEGIN
  UPDATE clicks SET ordinal = ordinal - 1 WHERE ${newerThan("old")}
    AND ${newest("old.post_id", "old.id")} - old.ordinal <= old.ordinal - ${oldest("old.post_id", "old.id")};
  UPDATE clicks SET ordinal = ordinal + 1 WHERE ${olderThan("old")}
    AND ${newest("old.post_id", "old.id")} - old.ordinal > old.ordinal - ${oldest("old.post_id", "old.id")};
END;
CREATE TRIGGER clicks_ordinal_move AFTER UPDATE OF post_id, clicked_at ON clicks
WHEN new.post_id <> old.post_id OR new.clicked_at <> old.clicked_at BEGIN
  ${renumber("old.post_id")}
  ${renumber("new.post_id")}
END;
`;

const STEP = "numbering each post's clicks oldest first (schema 27)";

/**
 * Numbers every click from its post's click order, a range of post ids at a time (read through
 * `clicks_by_client`, whose first column is the post), reporting progress in clicks numbered.
 */
export function fillClickOrdinals(db: Database.Database, progress: MigrationProgress): void {
  const fill = db.prepare(`UPDATE clicks SET ordinal = r.n
    FROM (SELECT id, row_number() OVER (PARTITION BY post_id ORDER BY clicked_at, id) AS n
      FROM clicks INDEXED BY clicks_by_client WHERE post_id >= ? AND post_id < ?) r
    WHERE clicks.id = r.id`);
  byClickPostRanges(db, STEP, progress, (from, to) => fill.run(from, to).changes);
}

/** The triggers' names, for dropping them. */
const triggerNames = [...triggers.matchAll(/CREATE TRIGGER (\w+)/g)].map((m) => m[1]!);

/**
 * Migration 27. The ordinals are written with the post-and-time index dropped, then the index is
 * built with them; taken again on a database put back to an older version (its migration rows
 * deleted, as every migration here allows), the column is kept and numbered afresh.
 */
export function addClickOrdinals(db: Database.Database, progress: MigrationProgress): void {
  for (const name of triggerNames) db.exec(`DROP TRIGGER IF EXISTS ${name}`);
  const columns = db.prepare("SELECT name FROM pragma_table_info('clicks')").pluck().all() as string[];
  if (!columns.includes("ordinal")) db.exec("ALTER TABLE clicks ADD COLUMN ordinal INTEGER");
  db.exec("DROP INDEX IF EXISTS clicks_by_post_time");
  fillClickOrdinals(db, progress);
  db.exec(index);
  db.exec(triggers);
}

/** Numbers every click again (a copy's clicks arrive in id order, not each post's click order). */
export function refillClickOrdinals(db: Database.Database): void {
  fillClickOrdinals(db, () => {});
}
