/**
 * What migration 27's running sums hold (postgres-running-sums.ts), as plain counts for tests to
 * compare with a recount: per feed and UTC day from the day rows (differenced, zeros left out),
 * and per feed the total of its row.
 */
import { SUM_BLOCK_DAYS } from "../store/postgres/postgres-running-sums.js";

/** Rows (feed_id, day, n) of `feed_<of>_days`, ordered. */
export const runningDayCounts = (of: "post" | "click") => `SELECT feed_id, day, n::int FROM (
    SELECT feed_id, block * ${SUM_BLOCK_DAYS} + i::integer - 1 AS day,
      v - coalesce(lag(v) OVER (PARTITION BY block, feed_id ORDER BY i), 0) AS n
    FROM feed_${of}_days, unnest(through) WITH ORDINALITY AS u (v, i)) x WHERE n <> 0 ORDER BY 1, 2`;

/** Rows (feed_id, total) of `feed_<of>_sums`, ordered. */
export const runningTotals = (of: "post" | "click") =>
  `SELECT feed_id, through[cardinality(through)] AS total FROM feed_${of}_sums ORDER BY 1`;
