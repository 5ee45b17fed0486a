/**
 * Migration 18's data step: every stored post gets its story keys, in id order (the order posts
 * were first stored), and a post that turns out to be a copy of an earlier one (another feed's
 * post with its canonical link, or the same text within a few days) becomes a `story_copies` row
 * of that story, exactly as ingest would have stored it: its clicks move to the story, and its
 * post row, index row and roll-up counts go (the roll-up triggers see the deletes).
 */
import type Database from "better-sqlite3";
import { storedStoryKeys } from "../../dedupe/story-keys.js";
import type { MigrationProgress } from "../migration-progress.js";
import { StatementCache } from "./sqlite-connection.js";
import { LanguageCountChanges } from "./sqlite-language-counts.js";
import { findStory, insertCopy, registerStory, type StoryMatch } from "./sqlite-story-writer.js";

interface StoredPost {
  id: number;
  feed_id: number;
  guid: string;
  link: string;
  title: string;
  excerpt: string;
  content: string;
  published_at: number | null;
  updated_at: number | null;
  seen_at: number;
  post_date: number;
  language_id: number;
  clicks: number;
  date_key: number | null;
  site_url: string | null;
}

const step = "finding copies of one story in several feeds";
const batch = 5_000;

/** Turns a stored post into a copy of `story`, inside the migration's transaction. */
function mergeInto(
  stmts: StatementCache,
  post: StoredPost,
  story: StoryMatch,
  counts: LanguageCountChanges,
): void {
  insertCopy(
    stmts,
    post.feed_id,
    {
      guid: post.guid,
      link: post.link,
      title: post.title,
      excerpt: post.excerpt,
      content: post.content,
      publishedAt: post.published_at,
      updatedAt: post.updated_at,
      seenAt: post.seen_at,
      languageId: post.language_id,
    },
    story,
    post.seen_at,
  );
  // Clicks re-inserted, not re-pointed: the click roll-ups follow inserts and deletes (triggers).
  if (post.clicks > 0) {
    stmts
      .get(`INSERT INTO clicks (post_id, clicked_at, client_hash)
        SELECT ?, clicked_at, client_hash FROM clicks WHERE post_id = ? ORDER BY id`)
      .run(story.postId, post.id);
    stmts.get("UPDATE posts SET clicks = clicks + ? WHERE id = ?").run(post.clicks, story.postId);
    const storyLanguage = stmts.get("SELECT language_id FROM posts WHERE id = ?").get(story.postId) as {
      language_id: number;
    };
    counts.add(storyLanguage.language_id, 0, post.clicks);
  }
  counts.add(post.language_id, -1, -post.clicks);
  if (post.date_key !== null) stmts.get("DELETE FROM posts_fts WHERE rowid = ?").run(post.date_key);
  stmts.get("DELETE FROM posts WHERE id = ?").run(post.id);
}

/**
 * Keys every post and merges the copies already stored; returns how many posts became copies.
 *
 * @example
 * mergeStoredCopies(db, progress); // inside migration 18's transaction
 */
export function mergeStoredCopies(db: Database.Database, progress: MigrationProgress): number {
  const stmts = new StatementCache(db);
  const total = (db.prepare("SELECT count(*) AS n FROM posts").get() as { n: number }).n;
  const page =
    db.prepare(`SELECT p.id, p.feed_id, p.guid, p.link, p.title, p.excerpt, p.content, p.published_at,
      p.updated_at, p.seen_at, p.post_date, p.language_id, p.clicks, p.date_key, f.site_url
    FROM posts p JOIN feeds f ON f.id = p.feed_id WHERE p.id > ? ORDER BY p.id LIMIT ${batch}`);
  const counts = new LanguageCountChanges();
  const feeds = new Set<number>();
  let done = 0;
  let merged = 0;
  let after = 0;
  for (;;) {
    const rows = page.all(after) as StoredPost[];
    if (rows.length === 0) break;
    for (const post of rows) {
      const keys = storedStoryKeys({ ...post, siteUrl: post.site_url });
      const story = findStory(stmts, post.feed_id, keys, post.post_date);
      if (story) {
        mergeInto(stmts, post, story, counts);
        feeds.add(post.feed_id);
        merged++;
      } else registerStory(stmts, post.id, keys, post.post_date);
    }
    after = rows[rows.length - 1]!.id;
    done += rows.length;
    progress(step, done, total);
  }
  counts.write(stmts);
  for (const feedId of feeds) {
    stmts
      .get(`UPDATE feeds SET (post_count, last_post_date) = (SELECT count(*), max(post_date) FROM (
          SELECT post_date FROM posts WHERE feed_id = ?
          UNION ALL SELECT c.story_date FROM story_copies c JOIN posts p ON p.id = c.post_id
            WHERE c.feed_id = ? AND p.feed_id <> c.feed_id)) WHERE id = ?`)
      .run(feedId, feedId, feedId);
  }
  return merged;
}
