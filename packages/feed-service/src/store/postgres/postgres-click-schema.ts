/**
 * A click in one round trip (migration 22, first built on branch pgingest31 as migration 18).
 *
 * `record_click` is what a click was as four statements (lock the post, check the client's last
 * click, insert it, count it), in one call: a PL/pgSQL function in READ COMMITTED takes a new
 * snapshot for each statement in it, so the check still starts after the post's lock is held and
 * sees any click of that post committed before (the reason the lock is there; see
 * https://www.postgresql.org/docs/current/transaction-iso.html#XACT-READ-COMMITTED). Called alone,
 * it is its own transaction: the post's and the roll-ups' row locks are held for that call only,
 * not across the client's BEGIN and COMMIT round trips.
 */
import type { Sql } from "./postgres-connection.js";

export const clickFunctionSchema = `
CREATE OR REPLACE FUNCTION record_click(click_post integer, click_client text, click_at bigint, click_since bigint)
  RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  found_link text;
BEGIN
  SELECT p.link INTO found_link FROM posts p WHERE p.id = click_post FOR UPDATE;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF NOT EXISTS (SELECT 1 FROM clicks k WHERE k.post_id = click_post AND k.client_hash = click_client
      AND k.clicked_at > click_since AND k.clicked_at <= click_at) THEN
    -- The count first, the click last: the click's roll-up row (its feed, today: every click of
    -- the feed that day writes it) stays locked for the least time, from its trigger to COMMIT.
    UPDATE posts SET clicks = clicks + 1 WHERE id = click_post;
    INSERT INTO clicks (post_id, clicked_at, client_hash) VALUES (click_post, click_at, click_client);
  END IF;
  RETURN found_link;
END $$;
`;

export async function createClickFunction(sql: Sql): Promise<void> {
  await sql.query(clickFunctionSchema);
}
