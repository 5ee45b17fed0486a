/**
 * Rows written straight into a PostgreSQL database left at schema 5, for the tests that check a
 * later migration fills its tables from rows it never saw written: one category, two feeds and
 * 300 posts alternating between them (language, category), an hour apart back from T0, each with
 * 0 to 3 clicks counted on the post (the clicks rows themselves are the test's to add).
 */
import { HOUR, T0 } from "./store-contract/contract-fixture.js";

export const schema5Rows = `INSERT INTO categories (id, name, name_key) VALUES (1, 'C', 'c');
  INSERT INTO feeds (id, url, name, name_key, category_id, language_id) VALUES
    (1, 'https://a.test/f', 'A', 'a', 1, 1), (2, 'https://b.test/f', 'B', 'b', NULL, 2);
  INSERT INTO posts (id, feed_id, guid, link, title, excerpt, content, seen_at, post_date, language_id, category_id, clicks)
    SELECT i, 1 + i % 2, 'g' || i, 'https://a.test/' || i, 't', '', '', 0, ${T0} - i * ${HOUR}, 1 + i % 2,
      CASE WHEN i % 2 = 0 THEN NULL ELSE 1 END, i % 4 FROM generate_series(1, 300) i;`;
