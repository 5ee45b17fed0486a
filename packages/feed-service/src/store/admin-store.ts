/**
 * The store's side of running the aggregator (spec §5.5): administrators, their sessions, the
 * sign-in throttle, visitors' suggestions, and every change an administrator makes, each written
 * to the audit log in the same transaction as the change itself. The pages and the CLI both go
 * through these calls, so what one can do the other can, and both leave the same trail.
 * Instants are epoch milliseconds (UTC), as everywhere in the store.
 */
import type {
  CategoryRecord,
  FeedAdminRecord,
  LanguageRecord,
  NewFeed,
  SmartCategoryRecord,
} from "./store.js";

/** Who made a change: `cli:<os user>`, `admin:<name>` or `visitor` (a suggestion). */
export type Actor = string;

export interface UserRecord {
  userId: number;
  userName: string;
  createdAt: number;
  changedAt: number;
}

/** A user with the stored password hash (see admin/passwords.ts); never shown to anyone. */
export interface UserCredentials extends UserRecord {
  passwordHash: string;
}

export interface SessionRecord {
  userId: number;
  userName: string;
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
}

export interface AuditRecord {
  auditId: number;
  at: number;
  actor: string;
  /** `feed.add`, `category.remove`, `user.passwd`, `suggestion.approve` … */
  action: string;
  /** The row changed, as `<kind>:<id>` (`feed:12`), or null. */
  subject: string | null;
  /** What changed, as the change saw it (JSON text of names and values; never a password). */
  details: string;
}

export type SuggestionState = "waiting" | "approved" | "rejected";

export interface SuggestionRecord {
  suggestionId: number;
  url: string;
  /** The feed autodiscovery found at `url` when the suggestion came in. */
  feedUrl: string;
  feedTitle: string | null;
  categoryId: number | null;
  note: string;
  state: SuggestionState;
  createdAt: number;
  decidedAt: number | null;
  decidedBy: string | null;
  /** The feed an approval added. */
  feedId: number | null;
}

export interface NewSuggestion {
  url: string;
  feedUrl: string;
  feedTitle: string | null;
  categoryId: number | null;
  note: string;
  /** The visitor's address, hashed with the install secret (never the address itself). */
  clientHash: string;
}

/** What editing a feed may change; a field left out stays. */
export interface FeedEdit {
  feedName?: string;
  categoryId?: number | null;
  languageId?: number;
}

/** What removing a category or language would change: the feeds and posts that use it. */
export interface Usage {
  feeds: number;
  posts: number;
}

export interface AdminStore {
  // --- administrators ---
  users(): Promise<UserRecord[]>;
  userCredentials(name: string): Promise<UserCredentials | undefined>;
  addUser(actor: Actor, name: string, passwordHash: string, now: number): Promise<UserRecord>;
  /** Removes the user and ends every session of theirs; false when no such user. */
  removeUser(actor: Actor, name: string, now: number): Promise<boolean>;
  /** Replaces the password and ends every session of the user; false when no such user. */
  setPassword(actor: Actor, name: string, passwordHash: string, now: number): Promise<boolean>;

  // --- sessions (ids arrive hashed; the store never sees the cookie's value) ---
  createSession(args: { idHash: string; userId: number; csrfToken: string; now: number }): Promise<void>;
  /**
   * The session if it was used within `idleMs`, marking it used now; an idle one is removed and
   * undefined is answered.
   */
  touchSession(idHash: string, now: number, idleMs: number): Promise<SessionRecord | undefined>;
  endSession(idHash: string): Promise<void>;
  /** Removes every session last used before `before` (each sign-in sweeps them); returns how many. */
  endIdleSessions(before: number): Promise<number>;
  /** Sessions of a user (tests and the users page count them). */
  sessionCount(userId: number): Promise<number>;

  // --- sign-in throttle: failures per key (`name:<lower-case name>`, `addr:<hash>`) ---
  recordSignInFailure(keys: readonly string[], now: number): Promise<void>;
  /** The failure times of a key since `since`, oldest first. */
  signInFailures(key: string, since: number): Promise<number[]>;

  // --- suggestions ---
  addSuggestion(suggestion: NewSuggestion, now: number): Promise<SuggestionRecord>;
  suggestions(state?: SuggestionState): Promise<SuggestionRecord[]>;
  suggestionById(id: number): Promise<SuggestionRecord | undefined>;
  /** Suggestions a client address made since `since` (the per-address daily limit). */
  suggestionsFrom(clientHash: string, since: number): Promise<number>;
  /** Adds the feed and marks the suggestion approved, in one transaction. */
  approveSuggestion(actor: Actor, id: number, feed: NewFeed, now: number): Promise<FeedAdminRecord>;
  rejectSuggestion(actor: Actor, id: number, now: number): Promise<boolean>;

  // --- feeds ---
  addFeed(actor: Actor, feed: NewFeed, now: number): Promise<FeedAdminRecord>;
  editFeed(actor: Actor, id: number, edit: FeedEdit, now: number): Promise<FeedAdminRecord>;
  /** Paused feeds are not fetched until resumed (their next check is put off). */
  setFeedPaused(actor: Actor, id: number, paused: boolean, now: number): Promise<FeedAdminRecord>;
  pausedFeeds(): Promise<Set<number>>;
  removeFeed(actor: Actor, id: number, now: number): Promise<boolean>;
  /** Makes the feed due now, so that the next ingest pass fetches it. */
  refreshFeedNow(actor: Actor, id: number, now: number): Promise<boolean>;

  // --- categories, smart categories, languages ---
  addCategory(actor: Actor, name: string, now: number): Promise<CategoryRecord>;
  renameCategory(actor: Actor, id: number, name: string, now: number): Promise<CategoryRecord>;
  categoryUsage(id: number): Promise<Usage>;
  removeCategory(actor: Actor, id: number, now: number): Promise<boolean>;
  addSmartCategory(
    actor: Actor,
    args: { name: string; query: string; key?: string },
    now: number,
  ): Promise<SmartCategoryRecord>;
  renameSmartCategory(actor: Actor, id: number, name: string, now: number): Promise<SmartCategoryRecord>;
  removeSmartCategory(actor: Actor, id: number, now: number): Promise<boolean>;
  addLanguage(actor: Actor, code: string, name: string | undefined, now: number): Promise<LanguageRecord>;
  renameLanguage(actor: Actor, id: number, name: string, now: number): Promise<LanguageRecord>;
  languageUsage(id: number): Promise<Usage>;
  /** Refused (FEED_CONFLICT) while feeds or posts use it, and for the two built-in languages. */
  removeLanguage(actor: Actor, id: number, now: number): Promise<boolean>;

  // --- the audit log ---
  /** Newest first; `before` pages on by audit id. */
  auditLog(args: { limit: number; before?: number }): Promise<AuditRecord[]>;
  /** Records a change made elsewhere in the store (an OPML import's summary). */
  recordAudit(
    actor: Actor,
    action: string,
    subject: string | null,
    details: object,
    now: number,
  ): Promise<void>;
}
