/**
 * Migration 17's data step on PostgreSQL, as SQLite's migration 18 (sqlite-story-migration.ts):
 * every stored post gets its story keys in id order, and a post that is a copy of an earlier one
 * becomes a `story_copies` row of that story, its clicks moved to the story (the click and post
 * roll-up triggers follow the updates and the delete). Posts are read 1,000 at a time, and each
 * batch's look-ups are two statements; copies within one batch are found in memory.
 */
import { type StoryKeys, storedStoryKeys, textWindowMs } from "../../dedupe/story-keys.js";
import { sameText } from "../../dedupe/text-fingerprint.js";
import type { MigrationProgress } from "../migration-progress.js";
import { rows, type Sql } from "./postgres-connection.js";
import { RECOUNT_FEED } from "./postgres-story-writer.js";

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
  site_url: string | null;
}

interface Known {
  postId: number;
  feedId: number;
  postDate: number;
  print: string | null;
}

const step = "finding copies of one story in several feeds";
const batch = 1_000;

/** Keys every post and merges the copies already stored; returns how many posts became copies. */
export async function mergeStoredCopies(sql: Sql, progress: MigrationProgress): Promise<number> {
  const [{ n: total } = { n: 0 }] = await rows<{ n: number }>(
    sql,
    "SELECT count(*)::integer AS n FROM posts",
  );
  const feeds = new Set<number>();
  let done = 0;
  let merged = 0;
  let after = 0;
  for (;;) {
    const page = await rows<StoredPost>(
      sql,
      `SELECT p.id, p.feed_id, p.guid, p.link, p.title, p.excerpt, p.content, p.published_at, p.updated_at,
          p.seen_at, p.post_date, p.language_id, p.clicks, f.site_url
        FROM posts p JOIN feeds f ON f.id = p.feed_id WHERE p.id > $1 ORDER BY p.id LIMIT ${batch}`,
      [after],
    );
    if (page.length === 0) break;
    const keyed = page.map((post) => ({
      post,
      keys: storedStoryKeys({ ...post, siteUrl: post.site_url }),
      date: Number(post.post_date),
    }));
    const byLink = new Map<string, Known[]>();
    const byBand = new Map<number, Known[]>();
    const links = [...new Set(keyed.flatMap((k) => (k.keys.linkKey ? [k.keys.linkKey] : [])))];
    for (const h of await rows<Known & { linkKey: string }>(
      sql,
      `SELECT k.link_key AS "linkKey", p.id AS "postId", p.feed_id AS "feedId", p.post_date AS "postDate", k.print
        FROM story_keys k JOIN posts p ON p.id = k.post_id WHERE k.link_key = ANY($1::text[]) ORDER BY p.id`,
      [links],
    )) {
      byLink.set(h.linkKey, [...(byLink.get(h.linkKey) ?? []), { ...h, postDate: Number(h.postDate) }]);
    }
    const printed = keyed.filter((k) => k.keys.print !== null);
    if (printed.length > 0) {
      const from = Math.min(...printed.map((k) => k.date)) - textWindowMs;
      const to = Math.max(...printed.map((k) => k.date)) + textWindowMs;
      for (const h of await rows<Known & { band: number }>(
        sql,
        `SELECT b.band, p.id AS "postId", p.feed_id AS "feedId", p.post_date AS "postDate", k.print
          FROM story_bands b JOIN story_keys k ON k.post_id = b.post_id JOIN posts p ON p.id = b.post_id
          WHERE b.band = ANY($1::integer[]) AND b.post_date BETWEEN $2 AND $3 ORDER BY p.id`,
        [[...new Set(printed.flatMap((k) => k.keys.print!.bands))], from, to],
      )) {
        byBand.set(h.band, [...(byBand.get(h.band) ?? []), { ...h, postDate: Number(h.postDate) }]);
      }
    }
    const registered: Array<{ post: StoredPost; keys: StoryKeys }> = [];
    const copies: Array<{ post: StoredPost; story: Known; by: "link" | "text" }> = [];
    for (const { post, keys, date } of keyed) {
      let story: Known | undefined;
      let by: "link" | "text" = "link";
      if (keys.linkKey) story = byLink.get(keys.linkKey)?.find((k) => k.feedId !== post.feed_id);
      if (!story && keys.print) {
        by = "text";
        const print = keys.print;
        for (const band of print.bands) {
          story = byBand
            .get(band)
            ?.find(
              (k) =>
                Math.abs(k.postDate - date) <= textWindowMs &&
                k.print !== null &&
                sameText(k.print, print.hex),
            );
          if (story) break;
        }
      }
      if (story) {
        copies.push({ post, story, by });
        continue;
      }
      // Later posts of the batch may be copies of this one.
      const known: Known = {
        postId: post.id,
        feedId: post.feed_id,
        postDate: date,
        print: keys.print?.hex ?? null,
      };
      if (keys.linkKey) byLink.set(keys.linkKey, [...(byLink.get(keys.linkKey) ?? []), known]);
      for (const band of keys.print?.bands ?? []) byBand.set(band, [...(byBand.get(band) ?? []), known]);
      registered.push({ post, keys });
    }
    if (registered.length > 0) {
      await sql.query(
        `INSERT INTO story_keys (post_id, link_key, print) SELECT * FROM unnest($1::integer[], $2::text[], $3::text[])`,
        [
          registered.map((r) => r.post.id),
          registered.map((r) => r.keys.linkKey),
          registered.map((r) => r.keys.print?.hex ?? null),
        ],
      );
      const bands = registered.flatMap((r) =>
        (r.keys.print?.bands ?? []).map((band) => [band, Number(r.post.post_date), r.post.id] as const),
      );
      await sql.query(
        `INSERT INTO story_bands (band, post_date, post_id)
          SELECT * FROM unnest($1::integer[], $2::bigint[], $3::integer[]) ON CONFLICT DO NOTHING`,
        [bands.map((b) => b[0]), bands.map((b) => b[1]), bands.map((b) => b[2])],
      );
    }
    for (const { post, story, by } of copies) {
      await sql.query(
        `INSERT INTO story_copies (feed_id, post_id, guid, link, title, excerpt, content, published_at, updated_at,
            seen_at, language_id, story_date, merged_by, merged_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $10)`,
        [
          post.feed_id,
          story.postId,
          post.guid,
          post.link,
          post.title,
          post.excerpt,
          post.content,
          post.published_at,
          post.updated_at,
          post.seen_at,
          post.language_id,
          story.postDate,
          by,
        ],
      );
      if (Number(post.clicks) > 0) {
        // The click triggers move the clicks' roll-ups with them; the story's count follows.
        await sql.query("UPDATE clicks SET post_id = $1 WHERE post_id = $2", [story.postId, post.id]);
        await sql.query("UPDATE posts SET clicks = clicks + $1 WHERE id = $2", [post.clicks, story.postId]);
        await sql.query("UPDATE posts SET clicks = 0 WHERE id = $1", [post.id]);
      }
      await sql.query("DELETE FROM posts WHERE id = $1", [post.id]);
      feeds.add(post.feed_id);
      merged++;
    }
    after = page[page.length - 1]!.id;
    done += page.length;
    progress(step, done, total);
  }
  for (const feedId of feeds) await sql.query(RECOUNT_FEED, [feedId]);
  return merged;
}
