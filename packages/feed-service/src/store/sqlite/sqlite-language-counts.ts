/**
 * Posts and clicks per language, kept on the language rows (migration 6) so that the language
 * data operation does not count a million index entries per call. Every write that adds, moves or
 * removes posts or clicks goes through here, inside its own transaction.
 */
import type Database from "better-sqlite3";
import type { StatementCache } from "./sqlite-connection.js";

/** Changes gathered during one refresh and written once at its end. */
export class LanguageCountChanges {
  readonly #deltas = new Map<number, { posts: number; clicks: number }>();

  add(languageId: number, posts: number, clicks = 0): void {
    const delta = this.#deltas.get(languageId) ?? { posts: 0, clicks: 0 };
    delta.posts += posts;
    delta.clicks += clicks;
    this.#deltas.set(languageId, delta);
  }

  write(stmts: StatementCache): void {
    const update = stmts.get(
      "UPDATE languages SET post_count = post_count + ?, clicks = clicks + ? WHERE id = ?",
    );
    for (const [languageId, { posts, clicks }] of this.#deltas) {
      if (posts !== 0 || clicks !== 0) update.run(posts, clicks, languageId);
    }
    this.#deltas.clear();
  }
}

/** Counts one new click on its post's language. */
export function addClickToLanguage(stmts: StatementCache, postId: number): void {
  stmts
    .get("UPDATE languages SET clicks = clicks + 1 WHERE id = (SELECT language_id FROM posts WHERE id = ?)")
    .run(postId);
}

/** Takes a feed's posts and their clicks off their languages' counts (before the feed and its posts are deleted). */
export function subtractFeedPosts(stmts: StatementCache, feedId: number): void {
  const counts = stmts
    .get(`SELECT language_id AS languageId, count(*) AS n, sum(clicks) AS clicks FROM posts
      WHERE feed_id = ? GROUP BY language_id`)
    .all(feedId) as Array<{ languageId: number; n: number; clicks: number }>;
  const changes = new LanguageCountChanges();
  for (const { languageId, n, clicks } of counts) changes.add(languageId, -n, -clicks);
  changes.write(stmts);
}

/**
 * Counts every language's posts and clicks again from the posts, in one pass over them: after
 * migrate-data's copy, whose rows carry no per-language counts (PostgreSQL keeps none on its
 * language rows), and which may land on a target whose two built-in languages counted other posts.
 */
export function recountLanguages(db: Database.Database): void {
  db.exec(`UPDATE languages SET post_count = 0, clicks = 0;
    UPDATE languages SET post_count = counted.posts, clicks = counted.clicks
      FROM (SELECT language_id, count(*) AS posts, sum(clicks) AS clicks FROM posts GROUP BY language_id) AS counted
      WHERE counted.language_id = languages.id;`);
}
