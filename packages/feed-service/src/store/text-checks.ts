/** Checks on the free-text values admin commands and ingest hand to the store, in either dialect. */
import { badArgument } from "../errors.js";

/** The text trimmed; a clear error when it is empty or longer than `max` characters. */
export function requireText(value: unknown, what: string, max: number): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw badArgument(`The ${what} must be non-empty text; got ${JSON.stringify(value ?? null)}.`);
  }
  const trimmed = value.trim();
  if (trimmed.length > max) {
    throw badArgument(`The ${what} must be at most ${max} characters; got ${trimmed.length}.`);
  }
  return trimmed;
}

/**
 * A feed's URL, trimmed and at most 2048 characters (both dialects, new feeds and redirects alike).
 *
 * @example
 * const url = feedUrlText(feed.feedUrl);
 */
export function feedUrlText(value: unknown): string {
  return requireText(value, "feed URL", 2048);
}

/**
 * A feed's name, trimmed and at most 500 characters.
 *
 * @example
 * const name = feedNameText(feed.feedName);
 */
export function feedNameText(value: unknown): string {
  return requireText(value, "feed name", 500);
}
