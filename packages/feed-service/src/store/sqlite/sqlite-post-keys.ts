/**
 * Looking up a feed's stored posts by guid or link, for ingest's unstable-guid check. The lists
 * go in as JSON arrays so that one statement serves any number of keys. The stories a feed carries
 * as copies of another feed's post (story_copies) are among its entries too.
 */
import type { StatementCache } from "./sqlite-connection.js";

export function postKeys(
  stmts: StatementCache,
  feedId: number,
  keys: { guids: readonly string[]; links: readonly string[] },
): Array<{ guid: string; link: string }> {
  if (keys.guids.length === 0 && keys.links.length === 0) return [];
  return stmts
    .get(`SELECT guid, link FROM posts WHERE feed_id = @feed
      AND (guid IN (SELECT value FROM json_each(@guids)) OR link IN (SELECT value FROM json_each(@links)))
      UNION ALL SELECT guid, link FROM story_copies WHERE feed_id = @feed
      AND (guid IN (SELECT value FROM json_each(@guids)) OR link IN (SELECT value FROM json_each(@links)))`)
    .all({ feed: feedId, guids: JSON.stringify(keys.guids), links: JSON.stringify(keys.links) }) as Array<{
    guid: string;
    link: string;
  }>;
}
