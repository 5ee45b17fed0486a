/** The WebSub subscriptions on PostgreSQL (see websub-store.ts for what each method promises). */
import type pg from "pg";
import { webSubColumns, webSubSelect } from "../websub-columns.js";
import type { HubLink, WebSubChanges, WebSubStore, WebSubSubscription } from "../websub-store.js";
import { changes as changed, rows } from "./postgres-connection.js";

export class PostgresWebSubStore implements WebSubStore {
  readonly #pool: pg.Pool;

  /** Takes the store's primary pool (every method here reads what a write depends on). */
  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async #byFeed(feedId: number): Promise<WebSubSubscription | undefined> {
    const [row] = await rows<WebSubSubscription>(
      this.#pool,
      `SELECT ${webSubSelect} FROM websub_subscriptions WHERE feed_id = $1`,
      [feedId],
    );
    return row;
  }

  async recordHubLink(
    feedId: number,
    found: HubLink | null,
    now: number,
  ): Promise<WebSubSubscription | undefined> {
    const known = await this.#byFeed(feedId);
    if (found === null) {
      if (known) await changed(this.#pool, "DELETE FROM websub_subscriptions WHERE feed_id = $1", [feedId]);
      return undefined;
    }
    // Most fetches find what the last one found: a read, no write.
    if (known && known.hubUrl === found.hubUrl && known.topicUrl === found.topicUrl) return known;
    const [row] = await rows<WebSubSubscription>(
      this.#pool,
      `INSERT INTO websub_subscriptions (feed_id, hub_url, topic_url, state, next_attempt_at, discovered_at)
       VALUES ($1, $2, $3, 'discovered', $4, $4)
       ON CONFLICT (feed_id) DO UPDATE SET hub_url = excluded.hub_url, topic_url = excluded.topic_url,
         state = 'discovered', callback_id = NULL, secret = NULL, lease_seconds = NULL,
         lease_expires_at = NULL, next_attempt_at = excluded.next_attempt_at, attempts = 0,
         last_error = NULL, discovered_at = excluded.discovered_at, verified_at = NULL
       RETURNING ${webSubSelect}`,
      [feedId, found.hubUrl, found.topicUrl, now],
    );
    return row;
  }

  subscriptionByFeed(feedId: number): Promise<WebSubSubscription | undefined> {
    return this.#byFeed(feedId);
  }

  async subscriptionByCallback(callbackId: string): Promise<WebSubSubscription | undefined> {
    const [row] = await rows<WebSubSubscription>(
      this.#pool,
      `SELECT ${webSubSelect} FROM websub_subscriptions WHERE callback_id = $1`,
      [callbackId],
    );
    return row;
  }

  dueSubscriptions(now: number, limit: number): Promise<WebSubSubscription[]> {
    return rows<WebSubSubscription>(
      this.#pool,
      `SELECT ${webSubSelect} FROM websub_subscriptions WHERE next_attempt_at <= $1
       ORDER BY next_attempt_at, feed_id LIMIT $2`,
      [now, limit],
    );
  }

  subscriptions(): Promise<WebSubSubscription[]> {
    return rows<WebSubSubscription>(
      this.#pool,
      `SELECT ${webSubSelect} FROM websub_subscriptions ORDER BY feed_id`,
    );
  }

  async updateSubscription(feedId: number, changes: WebSubChanges): Promise<boolean> {
    const keys = Object.keys(changes).filter((k) => k in webSubColumns) as Array<keyof WebSubChanges>;
    if (keys.length === 0) return (await this.#byFeed(feedId)) !== undefined;
    const set = keys.map((k, i) => `${webSubColumns[k]} = $${i + 1}`).join(", ");
    const values = [...keys.map((k) => changes[k] ?? null), feedId];
    return (
      (await changed(
        this.#pool,
        `UPDATE websub_subscriptions SET ${set} WHERE feed_id = $${keys.length + 1}`,
        values,
      )) > 0
    );
  }
}
