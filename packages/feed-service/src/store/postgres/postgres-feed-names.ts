/**
 * Every feed's id and name for a search's `feed:` (spec §4: up to 10,000 feeds), kept in the
 * process and read again only when a feed was added, renamed or removed since: the database
 * counts those changes in `feed_name_changes` (migration 29), by triggers on `feeds`, so a change
 * made by any process (`serve --workers N`, the CLI, migrate-data's COPY) is seen by every other.
 * A call whose count is unchanged reads one row instead of every feed's name.
 */
import { rows, type Sql } from "./postgres-connection.js";

/**
 * Migration 29. Adding and removing feeds are counted per statement (COPY included, TRUNCATE
 * too); an update per row whose name really changed, so the refreshes that rewrite a feed's row
 * (its fetch state, its running post count) neither count nor wait on the counter's row lock.
 * Idempotent: a test runs later migrations again.
 */
export const feedNameChangesSchema = `
CREATE TABLE IF NOT EXISTS feed_name_changes (
  one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
  changes BIGINT NOT NULL
);
INSERT INTO feed_name_changes (one, changes) VALUES (TRUE, 0) ON CONFLICT (one) DO NOTHING;
CREATE OR REPLACE FUNCTION count_feed_name_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE feed_name_changes SET changes = changes + 1;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER feeds_added_or_removed AFTER INSERT OR DELETE OR TRUNCATE ON feeds
  FOR EACH STATEMENT EXECUTE FUNCTION count_feed_name_change();
CREATE OR REPLACE TRIGGER feeds_renamed AFTER UPDATE OF name ON feeds
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION count_feed_name_change();
`;

export type FeedName = { feedId: number; feedName: string };

/** The names as of a count of changes; one per store (its pool of one database). */
export class FeedNames {
  #changes: string | null = null;
  #names: FeedName[] = [];

  /**
   * The feeds' names now. The count and the names are read by one statement (one snapshot), so
   * a change committed after it raises the count the next call compares.
   */
  async read(sql: Sql): Promise<FeedName[]> {
    return (await this.current(sql)).names;
  }

  /**
   * The names with the count of changes they are as of: a statement that checks the count
   * (`SELECT changes FROM feed_name_changes`) in its own snapshot knows whether they still hold.
   */
  async current(sql: Sql): Promise<{ changes: string | null; names: FeedName[] }> {
    const [now] = await rows<{ changes: string }>(
      sql,
      "SELECT changes::text AS changes FROM feed_name_changes",
    );
    if (now !== undefined && now.changes === this.#changes)
      return { changes: this.#changes, names: this.#names };
    const [all] = await rows<{ changes: string | null; names: FeedName[] | null }>(
      sql,
      `SELECT (SELECT changes::text FROM feed_name_changes) AS changes,
        (SELECT json_agg(json_build_object('feedId', id, 'feedName', name) ORDER BY id) FROM feeds) AS names`,
    );
    const names = all!.names ?? [];
    this.#names = names;
    this.#changes = all!.changes;
    return { changes: all!.changes, names };
  }
}
