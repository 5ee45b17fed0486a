/** What readers do, on PostgreSQL: clicks (deduplicated per client), searches, the install secret. */
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { FeedServiceError } from "../../errors.js";
import { searchTermsKey, searchTermsSpelling } from "../search-terms-key.js";
import type { ClickRow } from "../store.js";
import { inTransaction, rows, type Sql } from "./postgres-connection.js";

async function insertClickRow(sql: Sql, postId: number, clientHash: string, at: number): Promise<void> {
  await sql.query("INSERT INTO clicks (post_id, clicked_at, client_hash) VALUES ($1, $2, $3)", [
    postId,
    at,
    clientHash,
  ]);
  await sql.query("UPDATE posts SET clicks = clicks + 1 WHERE id = $1", [postId]);
}

/** The largest post id a click can name: posts.id is a PostgreSQL integer. */
const MAX_POST_ID = 2 ** 31 - 1;

/** Clicks stored by one call at most: a bound on one transaction's locks and on its wait. */
const MAX_CLICKS_PER_CALL = 64;

interface WaitingClick {
  readonly postId: number;
  readonly clientHash: string;
  readonly at: number;
  readonly windowMs: number;
  readonly settle: (error: unknown, link?: string | null) => void;
}

/**
 * Counts clicks unless the client clicked the post within the window; each click's post link, or
 * undefined when no post has that id. A click is sent at once, alone, as `record_click`, while
 * fewer than `calls` calls are under way and none holds a click of its post: no timer holds it,
 * and the calls overlap their waits as separate clicks did. Clicks that arrive while every call is
 * taken wait, and the next call to end sends them together (`record_clicks`, migration 43: one
 * statement and one transaction for all of them). A click never goes out while a click of its post
 * is under way in another call, so the window is checked in arrival order. Each click is answered
 * once the call that holds it has committed. A call that fails is sent again click by click, so a
 * click fails only for its own reason.
 */
export class ClickWriter {
  readonly #pool: pg.Pool;
  readonly #calls: number;
  #waiting: WaitingClick[] = [];
  /** The calls under way. */
  readonly #sending = new Set<Promise<void>>();
  /** The posts of the clicks in the calls under way. */
  readonly #postsSent = new Map<number, number>();

  /** `calls` calls at most under way, each on a connection of `pool`. */
  constructor(pool: pg.Pool, calls: number) {
    this.#pool = pool;
    this.#calls = Math.max(1, calls);
  }

  record(
    postId: number,
    clientHash: string,
    at: number,
    windowMs: number,
  ): Promise<{ link: string } | undefined> {
    if (postId > MAX_POST_ID) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      this.#waiting.push({
        postId,
        clientHash,
        at,
        windowMs,
        settle: (error, link) => (error ? reject(error) : resolve(link == null ? undefined : { link })),
      });
      this.#sendWaiting();
    });
  }

  /** Resolves once every click handed in is stored (or failed): before the pool closes. */
  async drained(): Promise<void> {
    while (this.#sending.size > 0) await Promise.all(this.#sending);
  }

  #sendWaiting(): void {
    while (this.#sending.size < this.#calls && this.#waiting.length > 0) {
      const batch = this.#nextBatch();
      if (batch.length === 0) return;
      for (const click of batch)
        this.#postsSent.set(click.postId, (this.#postsSent.get(click.postId) ?? 0) + 1);
      const call: Promise<void> = this.#send(batch).finally(() => {
        this.#sending.delete(call);
        for (const click of batch) {
          const left = this.#postsSent.get(click.postId)! - 1;
          if (left === 0) this.#postsSent.delete(click.postId);
          else this.#postsSent.set(click.postId, left);
        }
        this.#sendWaiting();
      });
      this.#sending.add(call);
    }
  }

  /**
   * The waiting clicks in arrival order, up to the bound, of one window (the route's is a
   * constant), but none of a post that a call under way holds: those wait for it, and so do the
   * later clicks of that post, which keeps each post's clicks in arrival order.
   */
  #nextBatch(): WaitingClick[] {
    const windowMs = this.#waiting[0]!.windowMs;
    const batch: WaitingClick[] = [];
    const left: WaitingClick[] = [];
    for (const [i, click] of this.#waiting.entries()) {
      if (click.windowMs !== windowMs || batch.length === MAX_CLICKS_PER_CALL) {
        left.push(...this.#waiting.slice(i));
        break;
      }
      (this.#postsSent.has(click.postId) ? left : batch).push(click);
    }
    this.#waiting = left;
    return batch;
  }

  async #send(batch: readonly WaitingClick[]): Promise<void> {
    try {
      const links = await storeClicks(this.#pool, batch);
      for (const [i, click] of batch.entries()) click.settle(undefined, links[i]);
    } catch (error) {
      if (batch.length === 1) batch[0]!.settle(error);
      else
        for (const click of batch) {
          try {
            click.settle(undefined, (await storeClicks(this.#pool, [click]))[0]);
          } catch (error) {
            click.settle(error);
          }
        }
    }
  }
}

/** One click as record_click (migration 22), several as record_clicks; each click's link. */
async function storeClicks(pool: pg.Pool, clicks: readonly WaitingClick[]): Promise<(string | null)[]> {
  if (clicks.length === 1) {
    const { postId, clientHash, at, windowMs } = clicks[0]!;
    const [found] = await rows<{ link: string | null }>(pool, "SELECT record_click($1, $2, $3, $4) AS link", [
      postId,
      clientHash,
      at,
      at - windowMs,
    ]);
    return [found?.link ?? null];
  }
  const [found] = await rows<{ links: (string | null)[] }>(
    pool,
    "SELECT record_clicks($1::integer[], $2::text[], $3::bigint[], $4) AS links",
    [
      clicks.map((c) => c.postId),
      clicks.map((c) => c.clientHash),
      clicks.map((c) => c.at),
      clicks[0]!.windowMs,
    ],
  );
  return found!.links;
}

/** Adds clicks in one transaction, all or none (insertClick is a batch of one). */
export async function insertClicks(pool: pg.Pool, clicks: readonly ClickRow[]): Promise<void> {
  return inTransaction(pool, async (sql) => {
    const seen = new Set<number>();
    for (const { postId, clientHash, at } of clicks) {
      if (!seen.has(postId)) {
        if ((await rows(sql, "SELECT 1 FROM posts WHERE id = $1 FOR UPDATE", [postId])).length === 0) {
          throw new FeedServiceError("FEED_NOT_FOUND", `No post has id ${postId}.`);
        }
        seen.add(postId);
      }
      await insertClickRow(sql, postId, clientHash, at);
    }
  });
}

export async function recordSearch(pool: pg.Pool, terms: string, at: number): Promise<void> {
  // PostgreSQL text cannot hold NUL; SQLite keeps it. Dropping it changes no search word.
  const spelling = searchTermsSpelling(terms.replaceAll("\u0000", ""));
  if (spelling === "") return;
  await rows(
    pool,
    `INSERT INTO searches (terms_key, terms, search_count, last_searched) VALUES ($1, $2, 1, $3)
      ON CONFLICT (terms_key) DO UPDATE SET
        search_count = searches.search_count + 1,
        terms = CASE WHEN excluded.last_searched >= searches.last_searched THEN excluded.terms ELSE searches.terms END,
        last_searched = greatest(searches.last_searched, excluded.last_searched)`,
    [searchTermsKey(spelling), spelling, at],
  );
}

const SECRET = "click_hash_secret";

export function installSecret(pool: pg.Pool): Promise<string> {
  return installSetting(pool, SECRET, () => randomBytes(32).toString("hex"));
}

/** A per-install setting, set from `propose` when it has none. */
export async function installSetting(pool: pg.Pool, name: string, propose: () => string): Promise<string> {
  const read = async () =>
    (await rows<{ value: string }>(pool, "SELECT value FROM settings WHERE name = $1", [name]))[0]?.value;
  const found = await read();
  if (found !== undefined) return found;
  // DO NOTHING: when two processes start together, the first one's value is the install's.
  await rows(pool, "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [
    name,
    propose(),
  ]);
  return (await read())!;
}
