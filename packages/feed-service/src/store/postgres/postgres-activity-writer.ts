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
 * undefined when no post has that id. Clicks that arrive while the writer's previous call is being
 * stored wait for it and go together in the next one (`record_clicks`, migration 43): one statement
 * and one transaction for all of them, each feed's running sums written once. A click that finds
 * the writer free is sent at once, alone: no timer holds it. Each click is answered once the call
 * that holds it has committed. A call that fails is sent again click by click, so a click fails
 * only for its own reason (a deadlock with another writer's batch included).
 */
export class ClickWriter {
  readonly #pool: pg.Pool;
  #waiting: WaitingClick[] = [];
  /** The calls under way, until no click waits. */
  #sending: Promise<void> | undefined;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
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
      this.#sending ??= this.#sendWaiting();
    });
  }

  /** Resolves once every click handed in is stored (or failed): before the pool closes. */
  async drained(): Promise<void> {
    await this.#sending;
  }

  async #sendWaiting(): Promise<void> {
    try {
      while (this.#waiting.length > 0) {
        // One window per call (the route's is a constant): the clicks in arrival order up to the bound.
        const windowMs = this.#waiting[0]!.windowMs;
        let n = 0;
        while (n < this.#waiting.length && n < MAX_CLICKS_PER_CALL && this.#waiting[n]!.windowMs === windowMs)
          n++;
        const batch = this.#waiting.splice(0, n);
        try {
          const links = await storeClicks(this.#pool, batch, windowMs);
          for (const [i, click] of batch.entries()) click.settle(undefined, links[i]);
        } catch (error) {
          if (batch.length === 1) batch[0]!.settle(error);
          else await this.#oneByOne(batch, windowMs);
        }
      }
    } finally {
      this.#sending = undefined;
    }
  }

  async #oneByOne(batch: readonly WaitingClick[], windowMs: number): Promise<void> {
    for (const click of batch) {
      try {
        click.settle(undefined, (await storeClicks(this.#pool, [click], windowMs))[0]);
      } catch (error) {
        click.settle(error);
      }
    }
  }
}

async function storeClicks(
  pool: pg.Pool,
  clicks: readonly WaitingClick[],
  windowMs: number,
): Promise<(string | null)[]> {
  const [found] = await rows<{ links: (string | null)[] }>(
    pool,
    "SELECT record_clicks($1::integer[], $2::text[], $3::bigint[], $4) AS links",
    [clicks.map((c) => c.postId), clicks.map((c) => c.clientHash), clicks.map((c) => c.at), windowMs],
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
