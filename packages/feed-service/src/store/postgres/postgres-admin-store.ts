/**
 * The admin store on PostgreSQL (see admin-store.ts for what each method promises). Each change
 * runs in one transaction with its audit row. The catalogue's writers open a transaction of their
 * own on a pool; inside a change they are handed the change's client dressed as a pool, so their
 * transaction becomes a savepoint of the change's and both commit or fail together.
 */
import type pg from "pg";
import { FeedServiceError } from "../../errors.js";
import {
  auditColumns,
  categoryNameText,
  changedFields,
  checkLanguageRemovable,
  detailsText,
  languageNameText,
  noteText,
  pausedUntil,
  suggestionColumns,
  userColumns,
  userNameText,
} from "../admin-fields.js";
import type {
  Actor,
  AdminStore,
  AuditRecord,
  FeedEdit,
  NewSuggestion,
  SessionRecord,
  SuggestionRecord,
  SuggestionState,
  Usage,
  UserCredentials,
  UserRecord,
} from "../admin-store.js";
import type {
  CategoryRecord,
  FeedAdminRecord,
  LanguageRecord,
  NewFeed,
  SmartCategoryRecord,
} from "../store.js";
import { feedUrlText } from "../text-checks.js";
import * as catalog from "./postgres-catalog-queries.js";
import * as catalogWriter from "./postgres-catalog-writer.js";
import { changes, inTransaction, rows, type Sql } from "./postgres-connection.js";
import * as feedWriter from "./postgres-feed-writer.js";

/** The change's client as a pool of one: BEGIN/COMMIT/ROLLBACK become a savepoint's steps. */
function poolInside(client: Sql): pg.Pool {
  const step: Record<string, string> = {
    BEGIN: "SAVEPOINT admin_change",
    COMMIT: "RELEASE SAVEPOINT admin_change",
    ROLLBACK: "ROLLBACK TO SAVEPOINT admin_change",
  };
  const query = (text: string | pg.QueryConfig, values?: unknown[]) =>
    typeof text === "string"
      ? client.query(step[text] ?? text, values)
      : client.query(text as pg.QueryConfig);
  return { connect: async () => ({ query, release() {} }), query } as unknown as pg.Pool;
}

interface Done<T> {
  result: T;
  subject: string | null;
  details: object;
}

export class PostgresAdminStore implements AdminStore {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** Runs `work` and writes its audit row in one transaction. */
  #change<T>(
    actor: Actor,
    action: string,
    now: number,
    work: (sql: Sql, pool: pg.Pool) => Promise<Done<T> | undefined>,
  ): Promise<T | undefined> {
    return inTransaction(this.#pool, async (sql) => {
      const done = await work(sql, poolInside(sql));
      if (done === undefined) return undefined;
      await audit(sql, actor, action, done.subject, done.details, now);
      return done.result;
    });
  }

  // --- administrators ---
  users(): Promise<UserRecord[]> {
    return rows<UserRecord>(this.#pool, `SELECT ${userColumns} FROM admin_users ORDER BY name_key`);
  }
  userCredentials(name: string): Promise<UserCredentials | undefined> {
    return user(this.#pool, name);
  }
  async addUser(actor: Actor, rawName: string, passwordHash: string, now: number): Promise<UserRecord> {
    const name = userNameText(rawName);
    return (await this.#change(actor, "user.add", now, async (sql) => {
      const known = await user(sql, name);
      if (known) {
        throw new FeedServiceError(
          "FEED_CONFLICT",
          `A user named ${JSON.stringify(known.userName)} already exists.`,
        );
      }
      await sql.query(
        "INSERT INTO admin_users (name, name_key, password_hash, created_at, changed_at) VALUES ($1, $2, $3, $4, $4)",
        [name, name.toLowerCase(), passwordHash, now],
      );
      const { passwordHash: _, ...added } = (await user(sql, name))!;
      return { result: added, subject: `user:${added.userId}`, details: { name } };
    }))!;
  }
  async removeUser(actor: Actor, name: string, now: number): Promise<boolean> {
    const done = await this.#change(actor, "user.remove", now, async (sql) => {
      const u = await user(sql, name);
      if (!u) return undefined;
      await sql.query("DELETE FROM admin_users WHERE id = $1", [u.userId]);
      return { result: true, subject: `user:${u.userId}`, details: { name: u.userName } };
    });
    return done === true;
  }
  async setPassword(actor: Actor, name: string, passwordHash: string, now: number): Promise<boolean> {
    const done = await this.#change(actor, "user.passwd", now, async (sql) => {
      const u = await user(sql, name);
      if (!u) return undefined;
      await sql.query("UPDATE admin_users SET password_hash = $1, changed_at = $2 WHERE id = $3", [
        passwordHash,
        now,
        u.userId,
      ]);
      const ended = await changes(sql, "DELETE FROM admin_sessions WHERE user_id = $1", [u.userId]);
      return {
        result: true,
        subject: `user:${u.userId}`,
        details: { name: u.userName, sessionsEnded: ended },
      };
    });
    return done === true;
  }

  // --- sessions ---
  async createSession(args: {
    idHash: string;
    userId: number;
    csrfToken: string;
    now: number;
  }): Promise<void> {
    await changes(
      this.#pool,
      "INSERT INTO admin_sessions (id_hash, user_id, csrf_token, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $4)",
      [args.idHash, args.userId, args.csrfToken, args.now],
    );
  }
  async touchSession(idHash: string, now: number, idleMs: number): Promise<SessionRecord | undefined> {
    const [row] = await rows<SessionRecord>(
      this.#pool,
      `SELECT s.user_id AS "userId", u.name AS "userName", s.csrf_token AS "csrfToken",
          s.created_at AS "createdAt", s.last_seen_at AS "lastSeenAt"
        FROM admin_sessions s JOIN admin_users u ON u.id = s.user_id WHERE s.id_hash = $1`,
      [idHash],
    );
    if (!row) return undefined;
    if (now - row.lastSeenAt >= idleMs) {
      await this.endSession(idHash);
      return undefined;
    }
    await changes(this.#pool, "UPDATE admin_sessions SET last_seen_at = $1 WHERE id_hash = $2", [
      now,
      idHash,
    ]);
    return { ...row, lastSeenAt: now };
  }
  async endSession(idHash: string): Promise<void> {
    await changes(this.#pool, "DELETE FROM admin_sessions WHERE id_hash = $1", [idHash]);
  }
  endIdleSessions(before: number): Promise<number> {
    return changes(this.#pool, "DELETE FROM admin_sessions WHERE last_seen_at < $1", [before]);
  }
  async sessionCount(userId: number): Promise<number> {
    const [row] = await rows<{ n: number }>(
      this.#pool,
      "SELECT count(*)::int AS n FROM admin_sessions WHERE user_id = $1",
      [userId],
    );
    return row!.n;
  }

  // --- sign-in throttle ---
  async recordSignInFailure(keys: readonly string[], now: number): Promise<void> {
    await inTransaction(this.#pool, async (sql) => {
      await sql.query("DELETE FROM sign_in_failures WHERE at < $1", [now - 86_400_000]);
      for (const key of keys)
        await sql.query("INSERT INTO sign_in_failures (key, at) VALUES ($1, $2)", [key, now]);
    });
  }
  async signInFailures(key: string, since: number): Promise<number[]> {
    const found = await rows<{ at: number }>(
      this.#pool,
      "SELECT at FROM sign_in_failures WHERE key = $1 AND at >= $2 ORDER BY at",
      [key, since],
    );
    return found.map((r) => r.at);
  }

  // --- suggestions ---
  async addSuggestion(s: NewSuggestion, now: number): Promise<SuggestionRecord> {
    const url = feedUrlText(s.url);
    const feedUrl = feedUrlText(s.feedUrl);
    const note = noteText(s.note);
    return (await this.#change("visitor", "suggestion.add", now, async (sql) => {
      const [row] = await rows<{ id: number }>(
        sql,
        `INSERT INTO suggestions (url, feed_url, feed_title, category_id, note, client_hash, state, created_at)
          VALUES ($1, $2, $3, $4, $5, $6, 'waiting', $7) RETURNING id`,
        [url, feedUrl, s.feedTitle, s.categoryId, note, s.clientHash, now],
      );
      const id = row!.id;
      return { result: (await suggestion(sql, id))!, subject: `suggestion:${id}`, details: { url, feedUrl } };
    }))!;
  }
  suggestions(state?: SuggestionState): Promise<SuggestionRecord[]> {
    return state === undefined
      ? rows<SuggestionRecord>(this.#pool, `SELECT ${suggestionColumns} FROM suggestions ORDER BY id DESC`)
      : rows<SuggestionRecord>(
          this.#pool,
          `SELECT ${suggestionColumns} FROM suggestions WHERE state = $1 ORDER BY id`,
          [state],
        );
  }
  suggestionById(id: number): Promise<SuggestionRecord | undefined> {
    return suggestion(this.#pool, id);
  }
  async suggestionsFrom(clientHash: string, since: number): Promise<number> {
    const [row] = await rows<{ n: number }>(
      this.#pool,
      "SELECT count(*)::int AS n FROM suggestions WHERE client_hash = $1 AND created_at >= $2",
      [clientHash, since],
    );
    return row!.n;
  }
  async approveSuggestion(actor: Actor, id: number, feed: NewFeed, now: number): Promise<FeedAdminRecord> {
    return (await this.#change(actor, "suggestion.approve", now, async (sql, pool) => {
      await waiting(sql, id);
      const added = await feedWriter.addFeed(pool, feed);
      await sql.query(
        "UPDATE suggestions SET state = 'approved', decided_at = $1, decided_by = $2, feed_id = $3 WHERE id = $4",
        [now, actor, added.feedId, id],
      );
      await audit(
        sql,
        actor,
        "feed.add",
        `feed:${added.feedId}`,
        { url: added.feedUrl, name: added.feedName },
        now,
      );
      return {
        result: added,
        subject: `suggestion:${id}`,
        details: { feedId: added.feedId, url: added.feedUrl },
      };
    }))!;
  }
  async rejectSuggestion(actor: Actor, id: number, now: number): Promise<boolean> {
    const done = await this.#change(actor, "suggestion.reject", now, async (sql) => {
      const s = await waiting(sql, id);
      await sql.query(
        "UPDATE suggestions SET state = 'rejected', decided_at = $1, decided_by = $2 WHERE id = $3",
        [now, actor, id],
      );
      return { result: true, subject: `suggestion:${id}`, details: { url: s.url } };
    });
    return done === true;
  }

  // --- feeds ---
  async addFeed(actor: Actor, feed: NewFeed, now: number): Promise<FeedAdminRecord> {
    return (await this.#change(actor, "feed.add", now, async (_sql, pool) => {
      const added = await feedWriter.addFeed(pool, feed);
      return {
        result: added,
        subject: `feed:${added.feedId}`,
        details: { url: added.feedUrl, name: added.feedName },
      };
    }))!;
  }
  async editFeed(actor: Actor, id: number, edit: FeedEdit, now: number): Promise<FeedAdminRecord> {
    return (await this.#change(actor, "feed.edit", now, async (sql, pool) => {
      const before = await requireFeed(sql, id);
      if (edit.feedName !== undefined || edit.languageId !== undefined) {
        // The refresh path renames and re-indexes the feed's posts (the name is a searched field).
        await feedWriter.applyFeedUpdate(pool, id, {
          posts: [],
          fetchState: {},
          feed: { feedName: edit.feedName, languageId: edit.languageId },
        });
      }
      if (edit.categoryId !== undefined && edit.categoryId !== before.categoryId) {
        if (edit.categoryId !== null && !(await catalog.categoryById(sql, edit.categoryId))) {
          throw new FeedServiceError("FEED_NOT_FOUND", `No category has id ${edit.categoryId}.`);
        }
        // Posts carry a copy of their feed's category.
        await sql.query("UPDATE feeds SET category_id = $1 WHERE id = $2", [edit.categoryId, id]);
        await sql.query("UPDATE posts SET category_id = $1 WHERE feed_id = $2", [edit.categoryId, id]);
      }
      const after = await requireFeed(sql, id);
      return { result: after, subject: `feed:${id}`, details: changedFields(before, after) };
    }))!;
  }
  async setFeedPaused(actor: Actor, id: number, paused: boolean, now: number): Promise<FeedAdminRecord> {
    return (await this.#change(actor, paused ? "feed.pause" : "feed.resume", now, async (sql) => {
      const feed = await requireFeed(sql, id);
      if (paused) {
        await sql.query(
          "INSERT INTO feed_pauses (feed_id, paused_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
          [id, now],
        );
        await sql.query("UPDATE feeds SET next_fetch_at = $1 WHERE id = $2", [pausedUntil, id]);
      } else if ((await changes(sql, "DELETE FROM feed_pauses WHERE feed_id = $1", [id])) > 0) {
        await sql.query("UPDATE feeds SET next_fetch_at = $1 WHERE id = $2", [now, id]);
      }
      return { result: await requireFeed(sql, id), subject: `feed:${id}`, details: { name: feed.feedName } };
    }))!;
  }
  async pausedFeeds(): Promise<Set<number>> {
    const found = await rows<{ id: number }>(this.#pool, "SELECT feed_id AS id FROM feed_pauses");
    return new Set(found.map((r) => r.id));
  }
  async removeFeed(actor: Actor, id: number, now: number): Promise<boolean> {
    const done = await this.#change(actor, "feed.remove", now, async (sql, pool) => {
      const feed = await catalog.feedById(sql, id);
      if (!feed) return undefined;
      await feedWriter.removeFeed(pool, id);
      return { result: true, subject: `feed:${id}`, details: { url: feed.feedUrl, name: feed.feedName } };
    });
    return done === true;
  }
  async refreshFeedNow(actor: Actor, id: number, now: number): Promise<boolean> {
    const done = await this.#change(actor, "feed.refresh", now, async (sql) => {
      const feed = await catalog.feedById(sql, id);
      if (!feed) return undefined;
      await sql.query("DELETE FROM feed_pauses WHERE feed_id = $1", [id]);
      await sql.query("UPDATE feeds SET next_fetch_at = $1 WHERE id = $2", [now, id]);
      return { result: true, subject: `feed:${id}`, details: { name: feed.feedName } };
    });
    return done === true;
  }

  // --- categories, smart categories, languages ---
  async addCategory(actor: Actor, name: string, now: number): Promise<CategoryRecord> {
    return (await this.#change(actor, "category.add", now, async (_sql, pool) => {
      const c = await catalogWriter.addCategory(pool, name);
      return { result: c, subject: `category:${c.categoryId}`, details: { name: c.categoryName } };
    }))!;
  }
  async renameCategory(actor: Actor, id: number, rawName: string, now: number): Promise<CategoryRecord> {
    const name = categoryNameText(rawName);
    return (await this.#change(actor, "category.rename", now, async (sql) => {
      const before = await catalog.categoryById(sql, id);
      if (!before) throw new FeedServiceError("FEED_NOT_FOUND", `No category has id ${id}.`);
      const clash = await rows(sql, "SELECT id FROM categories WHERE name_key = $1 AND id <> $2", [
        name.toLowerCase(),
        id,
      ]);
      if (clash.length > 0) {
        throw new FeedServiceError(
          "FEED_CONFLICT",
          `A category named ${JSON.stringify(name)} already exists.`,
        );
      }
      await sql.query("UPDATE categories SET name = $1, name_key = $2 WHERE id = $3", [
        name,
        name.toLowerCase(),
        id,
      ]);
      return {
        result: (await catalog.categoryById(sql, id))!,
        subject: `category:${id}`,
        details: { from: before.categoryName, to: name },
      };
    }))!;
  }
  categoryUsage(id: number): Promise<Usage> {
    return usage(this.#pool, "category_id", id);
  }
  async removeCategory(actor: Actor, id: number, now: number): Promise<boolean> {
    const done = await this.#change(actor, "category.remove", now, async (sql, pool) => {
      const c = await catalog.categoryById(sql, id);
      if (!c) return undefined;
      const used = await usage(sql, "category_id", id);
      await catalogWriter.removeCategory(pool, id);
      return { result: true, subject: `category:${id}`, details: { name: c.categoryName, ...used } };
    });
    return done === true;
  }
  async addSmartCategory(
    actor: Actor,
    args: { name: string; query: string; key?: string },
    now: number,
  ): Promise<SmartCategoryRecord> {
    return (await this.#change(actor, "smart-category.add", now, async (_sql, pool) => {
      const s = await catalogWriter.addSmartCategory(pool, args);
      return {
        result: s,
        subject: `smart-category:${s.smartCategoryId}`,
        details: { name: s.smartCategoryName, query: s.smartCategoryQuery },
      };
    }))!;
  }
  async renameSmartCategory(
    actor: Actor,
    id: number,
    rawName: string,
    now: number,
  ): Promise<SmartCategoryRecord> {
    const name = categoryNameText(rawName);
    return (await this.#change(actor, "smart-category.rename", now, async (sql) => {
      const before = await catalog.smartCategoryById(sql, id);
      if (!before) throw new FeedServiceError("FEED_NOT_FOUND", `No smart category has id ${id}.`);
      await sql.query("UPDATE smart_categories SET name = $1, name_key = $2 WHERE id = $3", [
        name,
        name.toLowerCase(),
        id,
      ]);
      return {
        result: (await catalog.smartCategoryById(sql, id))!,
        subject: `smart-category:${id}`,
        details: { from: before.smartCategoryName, to: name },
      };
    }))!;
  }
  async removeSmartCategory(actor: Actor, id: number, now: number): Promise<boolean> {
    const done = await this.#change(actor, "smart-category.remove", now, async (sql, pool) => {
      const s = await catalog.smartCategoryById(sql, id);
      if (!s) return undefined;
      await catalogWriter.removeSmartCategory(pool, id);
      return { result: true, subject: `smart-category:${id}`, details: { name: s.smartCategoryName } };
    });
    return done === true;
  }
  async addLanguage(
    actor: Actor,
    code: string,
    name: string | undefined,
    now: number,
  ): Promise<LanguageRecord> {
    return (await this.#change(actor, "language.add", now, async (_sql, pool) => {
      const l = await catalogWriter.ensureLanguage(pool, code, name);
      return {
        result: l,
        subject: `language:${l.languageId}`,
        details: { code: l.languageCode, name: l.languageName },
      };
    }))!;
  }
  async renameLanguage(actor: Actor, id: number, rawName: string, now: number): Promise<LanguageRecord> {
    const name = languageNameText(rawName);
    return (await this.#change(actor, "language.rename", now, async (sql) => {
      const before = await catalog.languageById(sql, id);
      if (!before) throw new FeedServiceError("FEED_NOT_FOUND", `No language has id ${id}.`);
      await sql.query("UPDATE languages SET name = $1 WHERE id = $2", [name, id]);
      return {
        result: (await catalog.languageById(sql, id))!,
        subject: `language:${id}`,
        details: { from: before.languageName, to: name },
      };
    }))!;
  }
  languageUsage(id: number): Promise<Usage> {
    return usage(this.#pool, "language_id", id);
  }
  async removeLanguage(actor: Actor, id: number, now: number): Promise<boolean> {
    const done = await this.#change(actor, "language.remove", now, async (sql) => {
      const l = await catalog.languageById(sql, id);
      if (!l) return undefined;
      checkLanguageRemovable(l, await usage(sql, "language_id", id));
      await sql.query("DELETE FROM languages WHERE id = $1", [id]);
      return {
        result: true,
        subject: `language:${id}`,
        details: { code: l.languageCode, name: l.languageName },
      };
    });
    return done === true;
  }

  // --- the audit log ---
  auditLog(args: { limit: number; before?: number }): Promise<AuditRecord[]> {
    return rows<AuditRecord>(
      this.#pool,
      `SELECT ${auditColumns} FROM audit_log WHERE id < $1 ORDER BY id DESC LIMIT $2`,
      [args.before ?? Number.MAX_SAFE_INTEGER, args.limit],
    );
  }
  recordAudit(
    actor: Actor,
    action: string,
    subject: string | null,
    details: object,
    now: number,
  ): Promise<void> {
    return audit(this.#pool, actor, action, subject, details, now);
  }
}

async function audit(
  sql: Sql,
  actor: Actor,
  action: string,
  subject: string | null,
  details: object,
  now: number,
) {
  await sql.query("INSERT INTO audit_log (at, actor, action, subject, details) VALUES ($1, $2, $3, $4, $5)", [
    now,
    actor,
    action,
    subject,
    detailsText(details),
  ]);
}

async function user(sql: Sql, name: string): Promise<UserCredentials | undefined> {
  const [row] = await rows<UserCredentials>(
    sql,
    `SELECT ${userColumns}, password_hash AS "passwordHash" FROM admin_users WHERE name_key = $1`,
    [name.trim().toLowerCase()],
  );
  return row;
}

async function suggestion(sql: Sql, id: number): Promise<SuggestionRecord | undefined> {
  const [row] = await rows<SuggestionRecord>(
    sql,
    `SELECT ${suggestionColumns} FROM suggestions WHERE id = $1`,
    [id],
  );
  return row;
}

async function waiting(sql: Sql, id: number): Promise<SuggestionRecord> {
  const s = await suggestion(sql, id);
  if (!s) throw new FeedServiceError("FEED_NOT_FOUND", `No suggestion has id ${id}.`);
  if (s.state !== "waiting")
    throw new FeedServiceError("FEED_CONFLICT", `Suggestion ${id} was already ${s.state}.`);
  return s;
}

async function requireFeed(sql: Sql, id: number): Promise<FeedAdminRecord> {
  const feed = await catalog.feedById(sql, id);
  if (!feed) throw new FeedServiceError("FEED_NOT_FOUND", `No feed has id ${id}.`);
  return feed;
}

async function usage(sql: Sql, column: "category_id" | "language_id", id: number): Promise<Usage> {
  const [f] = await rows<{ n: number }>(sql, `SELECT count(*)::int AS n FROM feeds WHERE ${column} = $1`, [
    id,
  ]);
  const [p] = await rows<{ n: number }>(sql, `SELECT count(*)::int AS n FROM posts WHERE ${column} = $1`, [
    id,
  ]);
  return { feeds: f!.n, posts: p!.n };
}
