/**
 * Looking up a feed's stored posts by guid or link, for ingest's unstable-guid check. The lists
 * go in as JSON arrays so that one statement serves any number of keys.
 */
import type { StatementCache } from "./sqlite-connection.js";

export function postKeys(
  stmts: StatementCache,
  feedId: number,
  keys: { guids: readonly string[]; links: readonly string[] },
): Array<{ guid: string; link: string }> {
  if (keys.guids.length === 0 && keys.links.length === 0) return [];
  return stmts
    .get(`SELECT guid, link FROM posts WHERE feed_id = ?
      AND (guid IN (SELECT value FROM json_each(?)) OR link IN (SELECT value FROM json_each(?)))`)
    .all(feedId, JSON.stringify(keys.guids), JSON.stringify(keys.links)) as Array<{
    guid: string;
    link: string;
  }>;
}
