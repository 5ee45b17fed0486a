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
import { STRIPES } from "./postgres-language-totals.js";

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

/**
 * Clicks that arrived together, in one call (migration 43): `record_click` for each, in arrival
 * order, in one transaction, so the statement and the transaction are shared. The batch's posts
 * are locked first, in id order, then each click is checked as `record_click` checks it, against
 * the stored clicks and the clicks of this batch already counted (the same client clicking the
 * same post twice in one batch counts once); the counted ones are written in two statements, one
 * count per post and one INSERT. Several calls, and record_click's single clicks, may run at once
 * (the writer's calls, several processes): each takes the rows they share in one order (see
 * below), so none waits for another in a cycle. Returns each click's post link, NULL where no post
 * has its id.
 */
export const clicksFunctionSchema = `
CREATE OR REPLACE FUNCTION record_clicks(click_posts integer[], click_clients text[], click_ats bigint[], window_ms bigint)
  RETURNS text[] LANGUAGE plpgsql
  -- Its statements' parameters are arrays, whose custom plans never cost more than the generic
  -- one, so the plan cache would plan them again on every call (a third of a one-click call's CPU).
  SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  links text[];
  counted integer[] := '{}';
  dup boolean;
  j integer;
  key_language integer;
  key_category integer;
  key_day integer;
  stripes integer[] := '{}';
BEGIN
  PERFORM 1 FROM posts p WHERE p.id = ANY (click_posts) ORDER BY p.id FOR UPDATE;
  SELECT array_agg(p.link ORDER BY c.n) INTO links
    FROM unnest(click_posts) WITH ORDINALITY AS c(post_id, n) LEFT JOIN posts p ON p.id = c.post_id;
  FOR i IN 1 .. cardinality(click_posts) LOOP
    CONTINUE WHEN links[i] IS NULL;
    dup := false;
    FOREACH j IN ARRAY counted LOOP
      IF click_posts[j] = click_posts[i] AND click_clients[j] = click_clients[i]
          AND click_ats[j] > click_ats[i] - window_ms AND click_ats[j] <= click_ats[i] THEN
        dup := true;
        EXIT;
      END IF;
    END LOOP;
    CONTINUE WHEN dup OR EXISTS (SELECT 1 FROM clicks k WHERE k.post_id = click_posts[i]
      AND k.client_hash = click_clients[i] AND k.clicked_at > click_ats[i] - window_ms AND k.clicked_at <= click_ats[i]);
    counted := counted || i;
  END LOOP;
  IF cardinality(counted) > 0 THEN
    -- Calls share roll-up rows, which each takes in one order: posts by id, scope_days rows, then
    -- language_totals rows (a scope_days row's trigger adds to the row it falls in), then the
    -- feeds' running sums. A click alone (record_click) takes one row of each in that order. The
    -- posts' row triggers below take a post's scope_days row and then its language_totals row
    -- post by post, in no set order, so a batch over several posts locks their scope_days rows
    -- first, in key order, then their language_totals rows.
    IF cardinality(counted) > 1 THEN
      FOR key_category, key_language, key_day IN
          SELECT DISTINCT p.category_id, p.language_id, post_day(p.post_date) FROM posts p
            WHERE p.id = ANY (ARRAY(SELECT click_posts[i] FROM unnest(counted) AS i))
            ORDER BY 1, 2, 3 LOOP
        PERFORM 1 FROM scope_days d WHERE d.language_id = key_language AND d.day = key_day
          AND d.category_id IS NOT DISTINCT FROM key_category FOR UPDATE;
        stripes := stripes || ARRAY[key_language, coalesce(key_category, 0), ((key_day % ${STRIPES}) + ${STRIPES}) % ${STRIPES}];
      END LOOP;
      IF cardinality(stripes) > 3 THEN
        FOR key_language, key_category, key_day IN
            SELECT DISTINCT stripes[i], stripes[i + 1], stripes[i + 2] FROM generate_series(1, cardinality(stripes), 3) AS i
              ORDER BY 1, 2, 3 LOOP
          PERFORM 1 FROM language_totals t
            WHERE (t.language_id, t.category_key, t.stripe) = (key_language, key_category, key_day) FOR UPDATE;
        END LOOP;
      END IF;
    END IF;
    -- The counts first, the clicks last, as in record_click (the feed's row locked the least time).
    UPDATE posts p SET clicks = p.clicks + c.n
      FROM (SELECT click_posts[i] AS id, count(*)::integer AS n FROM unnest(counted) AS i GROUP BY 1) c
      WHERE p.id = c.id;
    -- In feed order: each click's row trigger takes its feed's running-sum rows, the feed's total
    -- first (which keeps two calls out of one feed's day rows at once).
    INSERT INTO clicks (post_id, clicked_at, client_hash)
      SELECT click_posts[c.i], click_ats[c.i], click_clients[c.i] FROM unnest(counted) WITH ORDINALITY AS c(i, n)
        JOIN posts p ON p.id = click_posts[c.i] ORDER BY p.feed_id, c.n;
  END IF;
  RETURN links;
END $$;
`;
