/**
 * The admin store on SQLite (see admin-store.ts for what each method promises). Each change runs
 * in one transaction with its audit row; the catalogue's own writers run inside it (better-sqlite3
 * nests their transactions as savepoints), so a change and its record commit or fail together.
 */
import type Database from "better-sqlite3";
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
import * as catalog from "./sqlite-catalog-queries.js";
import * as catalogWriter from "./sqlite-catalog-writer.js";
import { StatementCache, translateSqliteError } from "./sqlite-connection.js";
import * as feedWriter from "./sqlite-feed-writer.js";

function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(translateSqliteError(error));
  }
}

export class SqliteAdminStore implements AdminStore {
  readonly #db: Database.Database;
  readonly #stmts: StatementCache;

  /** Takes an open, migrated connection (the store's own). */
  constructor(db: Database.Database) {
    this.#db = db;
    this.#stmts = new StatementCache(db);
  }

  /** Runs `work` and writes its audit row in one transaction. */
  #change<T>(
    actor: Actor,
    action: string,
    now: number,
    work: () => { result: T; subject: string | null; details: object } | undefined,
  ): Promise<T | undefined> {
    return settle(() =>
      this.#db.transaction(() => {
        const done = work();
        if (done === undefined) return undefined;
        this.#audit(actor, action, done.subject, done.details, now);
        return done.result;
      })(),
    );
  }

  #audit(actor: Actor, action: string, subject: string | null, details: object, now: number): void {
    this.#stmts
      .get("INSERT INTO audit_log (at, actor, action, subject, details) VALUES (?, ?, ?, ?, ?)")
      .run(now, actor, action, subject, detailsText(details));
  }

  #user(name: string): UserCredentials | undefined {
    return this.#stmts
      .get(`SELECT ${userColumns}, password_hash AS passwordHash FROM admin_users WHERE name_key = ?`)
      .get(name.trim().toLowerCase()) as UserCredentials | undefined;
  }

  #feed(id: number): FeedAdminRecord {
    const feed = catalog.feedById(this.#stmts, id);
    if (!feed) throw new FeedServiceError("FEED_NOT_FOUND", `No feed has id ${id}.`);
    return feed;
  }

  // --- administrators ---
  users(): Promise<UserRecord[]> {
    return settle(
      () => this.#stmts.get(`SELECT ${userColumns} FROM admin_users ORDER BY name_key`).all() as UserRecord[],
    );
  }
  userCredentials(name: string): Promise<UserCredentials | undefined> {
    return settle(() => this.#user(name));
  }
  async addUser(actor: Actor, rawName: string, passwordHash: string, now: number): Promise<UserRecord> {
    const name = userNameText(rawName);
    return (await this.#change(actor, "user.add", now, () => {
      const known = this.#user(name);
      if (known)
        throw new FeedServiceError(
          "FEED_CONFLICT",
          `A user named ${JSON.stringify(known.userName)} already exists.`,
        );
      const { lastInsertRowid } = this.#stmts
        .get(
          "INSERT INTO admin_users (name, name_key, password_hash, created_at, changed_at) VALUES (?, ?, ?, ?, ?)",
        )
        .run(name, name.toLowerCase(), passwordHash, now, now);
      const { passwordHash: _, ...user } = this.#user(name)!;
      return { result: user, subject: `user:${lastInsertRowid}`, details: { name } };
    }))!;
  }
  async removeUser(actor: Actor, name: string, now: number): Promise<boolean> {
    const done = await this.#change(actor, "user.remove", now, () => {
      const user = this.#user(name);
      if (!user) return undefined;
      // Sessions go by the foreign key's cascade.
      this.#stmts.get("DELETE FROM admin_users WHERE id = ?").run(user.userId);
      return { result: true, subject: `user:${user.userId}`, details: { name: user.userName } };
    });
    return done === true;
  }
  async setPassword(actor: Actor, name: string, passwordHash: string, now: number): Promise<boolean> {
    const done = await this.#change(actor, "user.passwd", now, () => {
      const user = this.#user(name);
      if (!user) return undefined;
      this.#stmts
        .get("UPDATE admin_users SET password_hash = ?, changed_at = ? WHERE id = ?")
        .run(passwordHash, now, user.userId);
      const ended = this.#stmts.get("DELETE FROM admin_sessions WHERE user_id = ?").run(user.userId).changes;
      return {
        result: true,
        subject: `user:${user.userId}`,
        details: { name: user.userName, sessionsEnded: ended },
      };
    });
    return done === true;
  }

  // --- sessions ---
  createSession(args: { idHash: string; userId: number; csrfToken: string; now: number }): Promise<void> {
    return settle(() => {
      this.#stmts
        .get(
          "INSERT INTO admin_sessions (id_hash, user_id, csrf_token, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)",
        )
        .run(args.idHash, args.userId, args.csrfToken, args.now, args.now);
    });
  }
  touchSession(idHash: string, now: number, idleMs: number): Promise<SessionRecord | undefined> {
    return settle(() => {
      const row = this.#stmts
        .get(`SELECT s.user_id AS userId, u.name AS userName, s.csrf_token AS csrfToken,
            s.created_at AS createdAt, s.last_seen_at AS lastSeenAt
          FROM admin_sessions s JOIN admin_users u ON u.id = s.user_id WHERE s.id_hash = ?`)
        .get(idHash) as SessionRecord | undefined;
      if (!row) return undefined;
      if (now - row.lastSeenAt >= idleMs) {
        this.#stmts.get("DELETE FROM admin_sessions WHERE id_hash = ?").run(idHash);
        return undefined;
      }
      this.#stmts.get("UPDATE admin_sessions SET last_seen_at = ? WHERE id_hash = ?").run(now, idHash);
      return { ...row, lastSeenAt: now };
    });
  }
  endSession(idHash: string): Promise<void> {
    return settle(() => {
      this.#stmts.get("DELETE FROM admin_sessions WHERE id_hash = ?").run(idHash);
    });
  }
  endIdleSessions(before: number): Promise<number> {
    return settle(
      () => this.#stmts.get("DELETE FROM admin_sessions WHERE last_seen_at < ?").run(before).changes,
    );
  }
  sessionCount(userId: number): Promise<number> {
    return settle(
      () =>
        (
          this.#stmts.get("SELECT count(*) AS n FROM admin_sessions WHERE user_id = ?").get(userId) as {
            n: number;
          }
        ).n,
    );
  }

  // --- sign-in throttle ---
  recordSignInFailure(keys: readonly string[], now: number): Promise<void> {
    return settle(() =>
      this.#db.transaction(() => {
        // Failures older than a day count for nothing; they go as new ones come.
        this.#stmts.get("DELETE FROM sign_in_failures WHERE at < ?").run(now - 86_400_000);
        for (const key of keys)
          this.#stmts.get("INSERT INTO sign_in_failures (key, at) VALUES (?, ?)").run(key, now);
      })(),
    );
  }
  signInFailures(key: string, since: number): Promise<number[]> {
    return settle(() =>
      (
        this.#stmts
          .get("SELECT at FROM sign_in_failures WHERE key = ? AND at >= ? ORDER BY at")
          .all(key, since) as Array<{
          at: number;
        }>
      ).map((r) => r.at),
    );
  }

  // --- suggestions ---
  #suggestion(id: number): SuggestionRecord | undefined {
    return this.#stmts.get(`SELECT ${suggestionColumns} FROM suggestions WHERE id = ?`).get(id) as
      | SuggestionRecord
      | undefined;
  }
  async addSuggestion(s: NewSuggestion, now: number): Promise<SuggestionRecord> {
    const url = feedUrlText(s.url);
    const feedUrl = feedUrlText(s.feedUrl);
    const note = noteText(s.note);
    return (await this.#change("visitor", "suggestion.add", now, () => {
      const { lastInsertRowid } = this.#stmts
        .get(`INSERT INTO suggestions (url, feed_url, feed_title, category_id, note, client_hash, state, created_at)
          VALUES (?, ?, ?, ?, ?, ?, 'waiting', ?)`)
        .run(url, feedUrl, s.feedTitle, s.categoryId, note, s.clientHash, now);
      const id = Number(lastInsertRowid);
      return { result: this.#suggestion(id)!, subject: `suggestion:${id}`, details: { url, feedUrl } };
    }))!;
  }
  suggestions(state?: SuggestionState): Promise<SuggestionRecord[]> {
    return settle(() =>
      state === undefined
        ? (this.#stmts
            .get(`SELECT ${suggestionColumns} FROM suggestions ORDER BY id DESC`)
            .all() as SuggestionRecord[])
        : (this.#stmts
            .get(`SELECT ${suggestionColumns} FROM suggestions WHERE state = ? ORDER BY id`)
            .all(state) as SuggestionRecord[]),
    );
  }
  suggestionById(id: number): Promise<SuggestionRecord | undefined> {
    return settle(() => this.#suggestion(id));
  }
  suggestionsFrom(clientHash: string, since: number): Promise<number> {
    return settle(
      () =>
        (
          this.#stmts
            .get("SELECT count(*) AS n FROM suggestions WHERE client_hash = ? AND created_at >= ?")
            .get(clientHash, since) as { n: number }
        ).n,
    );
  }
  #waiting(id: number): SuggestionRecord {
    const s = this.#suggestion(id);
    if (!s) throw new FeedServiceError("FEED_NOT_FOUND", `No suggestion has id ${id}.`);
    if (s.state !== "waiting")
      throw new FeedServiceError("FEED_CONFLICT", `Suggestion ${id} was already ${s.state}.`);
    return s;
  }
  async approveSuggestion(actor: Actor, id: number, feed: NewFeed, now: number): Promise<FeedAdminRecord> {
    return (await this.#change(actor, "suggestion.approve", now, () => {
      this.#waiting(id);
      const added = feedWriter.addFeed(this.#db, this.#stmts, feed);
      this.#stmts
        .get(
          "UPDATE suggestions SET state = 'approved', decided_at = ?, decided_by = ?, feed_id = ? WHERE id = ?",
        )
        .run(now, actor, added.feedId, id);
      this.#audit(
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
    const done = await this.#change(actor, "suggestion.reject", now, () => {
      const s = this.#waiting(id);
      this.#stmts
        .get("UPDATE suggestions SET state = 'rejected', decided_at = ?, decided_by = ? WHERE id = ?")
        .run(now, actor, id);
      return { result: true, subject: `suggestion:${id}`, details: { url: s.url } };
    });
    return done === true;
  }

  // --- feeds ---
  async addFeed(actor: Actor, feed: NewFeed, now: number): Promise<FeedAdminRecord> {
    return (await this.#change(actor, "feed.add", now, () => {
      const added = feedWriter.addFeed(this.#db, this.#stmts, feed);
      return {
        result: added,
        subject: `feed:${added.feedId}`,
        details: { url: added.feedUrl, name: added.feedName },
      };
    }))!;
  }
  async editFeed(actor: Actor, id: number, edit: FeedEdit, now: number): Promise<FeedAdminRecord> {
    return (await this.#change(actor, "feed.edit", now, () => {
      const before = this.#feed(id);
      if (edit.feedName !== undefined || edit.languageId !== undefined) {
        // The refresh path renames and re-indexes the feed's posts (the name is a searched field).
        feedWriter.applyFeedUpdate(this.#db, this.#stmts, id, {
          posts: [],
          fetchState: {},
          feed: { feedName: edit.feedName, languageId: edit.languageId },
        });
      }
      if (edit.categoryId !== undefined && edit.categoryId !== before.categoryId) {
        if (edit.categoryId !== null && !catalog.categoryById(this.#stmts, edit.categoryId)) {
          throw new FeedServiceError("FEED_NOT_FOUND", `No category has id ${edit.categoryId}.`);
        }
        // Posts carry a copy of their feed's category.
        this.#stmts.get("UPDATE feeds SET category_id = ? WHERE id = ?").run(edit.categoryId, id);
        this.#stmts.get("UPDATE posts SET category_id = ? WHERE feed_id = ?").run(edit.categoryId, id);
      }
      const after = this.#feed(id);
      return { result: after, subject: `feed:${id}`, details: changedFields(before, after) };
    }))!;
  }
  async setFeedPaused(actor: Actor, id: number, paused: boolean, now: number): Promise<FeedAdminRecord> {
    return (await this.#change(actor, paused ? "feed.pause" : "feed.resume", now, () => {
      const feed = this.#feed(id);
      if (paused) {
        this.#stmts.get("INSERT OR IGNORE INTO feed_pauses (feed_id, paused_at) VALUES (?, ?)").run(id, now);
        this.#stmts.get("UPDATE feeds SET next_fetch_at = ? WHERE id = ?").run(pausedUntil, id);
      } else if (this.#stmts.get("DELETE FROM feed_pauses WHERE feed_id = ?").run(id).changes > 0) {
        this.#stmts.get("UPDATE feeds SET next_fetch_at = ? WHERE id = ?").run(now, id);
      }
      return { result: this.#feed(id), subject: `feed:${id}`, details: { name: feed.feedName } };
    }))!;
  }
  pausedFeeds(): Promise<Set<number>> {
    return settle(
      () =>
        new Set(
          (this.#stmts.get("SELECT feed_id AS id FROM feed_pauses").all() as Array<{ id: number }>).map(
            (r) => r.id,
          ),
        ),
    );
  }
  async removeFeed(actor: Actor, id: number, now: number): Promise<boolean> {
    const done = await this.#change(actor, "feed.remove", now, () => {
      const feed = catalog.feedById(this.#stmts, id);
      if (!feed) return undefined;
      feedWriter.removeFeed(this.#db, this.#stmts, id);
      return { result: true, subject: `feed:${id}`, details: { url: feed.feedUrl, name: feed.feedName } };
    });
    return done === true;
  }
  async refreshFeedNow(actor: Actor, id: number, now: number): Promise<boolean> {
    const done = await this.#change(actor, "feed.refresh", now, () => {
      const feed = catalog.feedById(this.#stmts, id);
      if (!feed) return undefined;
      this.#stmts.get("DELETE FROM feed_pauses WHERE feed_id = ?").run(id);
      this.#stmts.get("UPDATE feeds SET next_fetch_at = ? WHERE id = ?").run(now, id);
      return { result: true, subject: `feed:${id}`, details: { name: feed.feedName } };
    });
    return done === true;
  }

  // --- categories, smart categories, languages ---
  async addCategory(actor: Actor, name: string, now: number): Promise<CategoryRecord> {
    return (await this.#change(actor, "category.add", now, () => {
      const c = catalogWriter.addCategory(this.#db, this.#stmts, name);
      return { result: c, subject: `category:${c.categoryId}`, details: { name: c.categoryName } };
    }))!;
  }
  async renameCategory(actor: Actor, id: number, rawName: string, now: number): Promise<CategoryRecord> {
    const name = categoryNameText(rawName);
    return (await this.#change(actor, "category.rename", now, () => {
      const before = catalog.categoryById(this.#stmts, id);
      if (!before) throw new FeedServiceError("FEED_NOT_FOUND", `No category has id ${id}.`);
      const clash = this.#stmts
        .get("SELECT id FROM categories WHERE name_key = ? AND id <> ?")
        .get(name.toLowerCase(), id);
      if (clash)
        throw new FeedServiceError(
          "FEED_CONFLICT",
          `A category named ${JSON.stringify(name)} already exists.`,
        );
      this.#stmts
        .get("UPDATE categories SET name = ?, name_key = ? WHERE id = ?")
        .run(name, name.toLowerCase(), id);
      return {
        result: catalog.categoryById(this.#stmts, id)!,
        subject: `category:${id}`,
        details: { from: before.categoryName, to: name },
      };
    }))!;
  }
  categoryUsage(id: number): Promise<Usage> {
    return settle(() => this.#usage("category_id", id));
  }
  #usage(column: "category_id" | "language_id", id: number): Usage {
    const feeds = (
      this.#stmts.get(`SELECT count(*) AS n FROM feeds WHERE ${column} = ?`).get(id) as { n: number }
    ).n;
    const posts = (
      this.#stmts.get(`SELECT count(*) AS n FROM posts WHERE ${column} = ?`).get(id) as { n: number }
    ).n;
    return { feeds, posts };
  }
  async removeCategory(actor: Actor, id: number, now: number): Promise<boolean> {
    const done = await this.#change(actor, "category.remove", now, () => {
      const c = catalog.categoryById(this.#stmts, id);
      if (!c) return undefined;
      const usage = this.#usage("category_id", id);
      catalogWriter.removeCategory(this.#db, this.#stmts, id);
      return { result: true, subject: `category:${id}`, details: { name: c.categoryName, ...usage } };
    });
    return done === true;
  }
  async addSmartCategory(
    actor: Actor,
    args: { name: string; query: string; key?: string },
    now: number,
  ): Promise<SmartCategoryRecord> {
    return (await this.#change(actor, "smart-category.add", now, () => {
      const s = catalogWriter.addSmartCategory(this.#db, this.#stmts, args);
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
    return (await this.#change(actor, "smart-category.rename", now, () => {
      const before = catalog.smartCategoryById(this.#stmts, id);
      if (!before) throw new FeedServiceError("FEED_NOT_FOUND", `No smart category has id ${id}.`);
      this.#stmts
        .get("UPDATE smart_categories SET name = ?, name_key = ? WHERE id = ?")
        .run(name, name.toLowerCase(), id);
      return {
        result: catalog.smartCategoryById(this.#stmts, id)!,
        subject: `smart-category:${id}`,
        details: { from: before.smartCategoryName, to: name },
      };
    }))!;
  }
  async removeSmartCategory(actor: Actor, id: number, now: number): Promise<boolean> {
    const done = await this.#change(actor, "smart-category.remove", now, () => {
      const s = catalog.smartCategoryById(this.#stmts, id);
      if (!s) return undefined;
      catalogWriter.removeSmartCategory(this.#stmts, id);
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
    return (await this.#change(actor, "language.add", now, () => {
      const l = catalogWriter.ensureLanguage(this.#db, this.#stmts, code, name);
      return {
        result: l,
        subject: `language:${l.languageId}`,
        details: { code: l.languageCode, name: l.languageName },
      };
    }))!;
  }
  async renameLanguage(actor: Actor, id: number, rawName: string, now: number): Promise<LanguageRecord> {
    const name = languageNameText(rawName);
    return (await this.#change(actor, "language.rename", now, () => {
      const before = catalog.languageById(this.#stmts, id);
      if (!before) throw new FeedServiceError("FEED_NOT_FOUND", `No language has id ${id}.`);
      this.#stmts.get("UPDATE languages SET name = ? WHERE id = ?").run(name, id);
      return {
        result: catalog.languageById(this.#stmts, id)!,
        subject: `language:${id}`,
        details: { from: before.languageName, to: name },
      };
    }))!;
  }
  languageUsage(id: number): Promise<Usage> {
    return settle(() => this.#usage("language_id", id));
  }
  async removeLanguage(actor: Actor, id: number, now: number): Promise<boolean> {
    const done = await this.#change(actor, "language.remove", now, () => {
      const l = catalog.languageById(this.#stmts, id);
      if (!l) return undefined;
      checkLanguageRemovable(l, this.#usage("language_id", id));
      this.#stmts.get("DELETE FROM languages WHERE id = ?").run(id);
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
    return settle(
      () =>
        this.#stmts
          .get(`SELECT ${auditColumns} FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT ?`)
          .all(args.before ?? Number.MAX_SAFE_INTEGER, args.limit) as AuditRecord[],
    );
  }
  recordAudit(
    actor: Actor,
    action: string,
    subject: string | null,
    details: object,
    now: number,
  ): Promise<void> {
    return settle(() => this.#audit(actor, action, subject, details, now));
  }
}
