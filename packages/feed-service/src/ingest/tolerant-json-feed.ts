/**
 * JSON Feed as publishers really serve it. feedsmith recognises a JSON Feed by a `version` that
 * names jsonfeed.org, or by a title beside items; real feeds write `"1.1"`, `"1"`, "JSON Feed
 * 1.1", `jsonfeed.org/version/1` without a scheme, or leave the title out. As gofeed and
 * feedparser do, any JSON object with an `items` array (key in any case) is read as a JSON Feed
 * 1.1 for whatever it holds; anything else is not a feed.
 */
import { type JsonFeed, parseJsonFeed } from "feedsmith";
import type { FailureCode } from "./failure-codes.js";
import { FeedParseError } from "./parse-error.js";

const canonicalVersion = "https://jsonfeed.org/version/1.1";

function notAFeed(reason: string, failure: FailureCode, cause?: unknown): FeedParseError {
  return new FeedParseError(failure, `The document is not a feed we can read: ${reason}.`, { cause });
}

/**
 * @example
 * readJsonFeed('{"version":"1.1","items":[{"id":"1","title":"Hello"}]}').items?.[0]?.title; // "Hello"
 */
export function readJsonFeed(text: string): JsonFeed.Feed<string> {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw notAFeed("it is not valid JSON", "PARSE_MALFORMED", error);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw notAFeed("it is JSON but not an object with an items array", "PARSE_NOT_A_FEED");
  }
  const object = value as Record<string, unknown>;
  const itemsKey = Object.keys(object).find((k) => k.toLowerCase() === "items");
  if (itemsKey === undefined || !Array.isArray(object[itemsKey])) {
    throw notAFeed("it is JSON but has no items array, so it is not a JSON Feed", "PARSE_NOT_A_FEED");
  }
  // Only the version is replaced, under every spelling of its key: the rest is read as served.
  const normalised: Record<string, unknown> = { version: canonicalVersion };
  for (const [key, v] of Object.entries(object)) if (key.toLowerCase() !== "version") normalised[key] = v;
  try {
    return parseJsonFeed(normalised);
  } catch (error) {
    throw notAFeed("it is JSON but its items could not be read", "PARSE_MALFORMED", error);
  }
}
