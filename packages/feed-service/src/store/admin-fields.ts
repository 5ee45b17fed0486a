/** Checks on what administrators and visitors hand to the admin store, the same in both dialects. */
import { badArgument, FeedServiceError } from "../errors.js";
import type { Usage } from "./admin-store.js";
import type { FeedAdminRecord, LanguageRecord } from "./store.js";
import { requireText } from "./text-checks.js";

const userName = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** An administrator's name: 1-64 letters, digits, `.`, `_`, `@` or `-`, starting with a letter or digit. */
export function userNameText(value: unknown): string {
  const text = typeof value === "string" ? value.trim() : "";
  if (!userName.test(text)) {
    throw badArgument(
      "The user name must be 1 to 64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit.",
    );
  }
  return text;
}

/** A suggestion's note: optional, at most 1000 characters. */
export function noteText(value: unknown): string {
  const text = typeof value === "string" ? value.trim() : "";
  if (text.length > 1000) throw badArgument(`The note must be at most 1000 characters; got ${text.length}.`);
  return text;
}

export function categoryNameText(value: unknown): string {
  return requireText(value, "category name", 200);
}

export function languageNameText(value: unknown): string {
  return requireText(value, "language name", 100);
}

/** The audit row's details as stored: JSON text (a password never reaches this). */
export function detailsText(details: object): string {
  return JSON.stringify(details);
}

/** Column lists with the record field names as aliases (the same SQL text in both dialects). */
export const userColumns =
  'id AS "userId", name AS "userName", created_at AS "createdAt", changed_at AS "changedAt"';
export const auditColumns = 'id AS "auditId", at, actor, action, subject, details';
export const suggestionColumns = `id AS "suggestionId", url, feed_url AS "feedUrl", feed_title AS "feedTitle",
  category_id AS "categoryId", note, state, created_at AS "createdAt", decided_at AS "decidedAt",
  decided_by AS "decidedBy", feed_id AS "feedId"`;

/** A paused feed's next check: never, in practice (the year 9999), until it is resumed. */
export const pausedUntil = 253_402_300_799_000;

/** The two languages every database starts with stay; a language in use stays until nothing uses it. */
export function checkLanguageRemovable(l: LanguageRecord, usage: Usage): void {
  if (l.languageId <= 2) {
    throw new FeedServiceError(
      "FEED_CONFLICT",
      `${l.languageName} (${l.languageCode}) is built in and cannot be removed.`,
    );
  }
  if (usage.feeds > 0 || usage.posts > 0) {
    throw new FeedServiceError(
      "FEED_CONFLICT",
      `${l.languageName} (${l.languageCode}) is used by ${usage.feeds} feeds and ${usage.posts} posts; file them under another language first.`,
    );
  }
}

/** The fields an edit changed, as `{field: [before, after]}` for the audit row. */
export function changedFields(before: FeedAdminRecord, after: FeedAdminRecord): object {
  const changed: Record<string, unknown> = {};
  for (const field of ["feedName", "categoryId", "languageId"] as const) {
    if (before[field] !== after[field]) changed[field] = [before[field], after[field]];
  }
  return changed;
}
