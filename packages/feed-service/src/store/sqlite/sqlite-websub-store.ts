/** The WebSub subscriptions on SQLite (see websub-store.ts for what each method promises). */
import type Database from "better-sqlite3";
import { webSubColumns, webSubSelect } from "../websub-columns.js";
import type { HubLink, WebSubChanges, WebSubStore, WebSubSubscription } from "../websub-store.js";
import { StatementCache, translateSqliteError } from "./sqlite-connection.js";

function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(translateSqliteError(error));
  }
}

export class SqliteWebSubStore implements WebSubStore {
  readonly #stmts: StatementCache;

  /** Takes an open, migrated connection (the store's own). */
  constructor(db: Database.Database) {
    this.#stmts = new StatementCache(db);
  }

  #byFeed(feedId: number): WebSubSubscription | undefined {
    return this.#stmts
      .get(`SELECT ${webSubSelect} FROM websub_subscriptions WHERE feed_id = ?`)
      .get(feedId) as WebSubSubscription | undefined;
  }

  recordHubLink(feedId: number, found: HubLink | null, now: number): Promise<WebSubSubscription | undefined> {
    return settle(() => {
      const known = this.#byFeed(feedId);
      if (found === null) {
        if (known) this.#stmts.get("DELETE FROM websub_subscriptions WHERE feed_id = ?").run(feedId);
        return undefined;
      }
      // Most fetches find what the last one found: a read, no write.
      if (known && known.hubUrl === found.hubUrl && known.topicUrl === found.topicUrl) return known;
      this.#stmts
        .get(
          `INSERT INTO websub_subscriptions (feed_id, hub_url, topic_url, state, next_attempt_at, discovered_at)
           VALUES (?, ?, ?, 'discovered', ?, ?)
           ON CONFLICT (feed_id) DO UPDATE SET hub_url = excluded.hub_url, topic_url = excluded.topic_url,
             state = 'discovered', callback_id = NULL, secret = NULL, lease_seconds = NULL,
             lease_expires_at = NULL, next_attempt_at = excluded.next_attempt_at, attempts = 0,
             last_error = NULL, discovered_at = excluded.discovered_at, verified_at = NULL`,
        )
        .run(feedId, found.hubUrl, found.topicUrl, now, now);
      return this.#byFeed(feedId);
    });
  }

  subscriptionByFeed(feedId: number): Promise<WebSubSubscription | undefined> {
    return settle(() => this.#byFeed(feedId));
  }

  subscriptionByCallback(callbackId: string): Promise<WebSubSubscription | undefined> {
    return settle(
      () =>
        this.#stmts
          .get(`SELECT ${webSubSelect} FROM websub_subscriptions WHERE callback_id = ?`)
          .get(callbackId) as WebSubSubscription | undefined,
    );
  }

  dueSubscriptions(now: number, limit: number): Promise<WebSubSubscription[]> {
    return settle(
      () =>
        this.#stmts
          .get(
            `SELECT ${webSubSelect} FROM websub_subscriptions WHERE next_attempt_at <= ?
             ORDER BY next_attempt_at, feed_id LIMIT ?`,
          )
          .all(now, limit) as WebSubSubscription[],
    );
  }

  subscriptions(): Promise<WebSubSubscription[]> {
    return settle(
      () =>
        this.#stmts
          .get(`SELECT ${webSubSelect} FROM websub_subscriptions ORDER BY feed_id`)
          .all() as WebSubSubscription[],
    );
  }

  updateSubscription(feedId: number, changes: WebSubChanges): Promise<boolean> {
    return settle(() => {
      const keys = Object.keys(changes).filter((k) => k in webSubColumns) as Array<keyof WebSubChanges>;
      if (keys.length === 0) return this.#byFeed(feedId) !== undefined;
      const set = keys.map((k) => `${webSubColumns[k]} = ?`).join(", ");
      const result = this.#stmts
        .get(`UPDATE websub_subscriptions SET ${set} WHERE feed_id = ?`)
        .run(...keys.map((k) => changes[k] ?? null), feedId);
      return result.changes > 0;
    });
  }
}
