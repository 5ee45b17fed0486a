/**
 * The store methods that the SQLite read pool runs on its query threads, by lane: the catalog
 * lookups are cheap and get a lane of their own, so that they answer at once however many heavy
 * calls (searches, long popularity windows, deep pages) are running.
 */
import type { Store } from "../store.js";

export const lightReadMethods = [
  "categories",
  "smartCategories",
  "languages",
  "feeds",
  "feedNames",
  "searchHistory",
  "categoryById",
  "feedById",
  "languageById",
  "smartCategoryById",
  "smartCategoryByKey",
  "failingFeeds",
] as const satisfies ReadonlyArray<keyof Store>;

export const heavyReadMethods = [
  "recentPosts",
  "postsByCategory",
  "postsByFeed",
  "searchPosts",
  "countSearchMatches",
  "mostPopularPosts",
  "mostPopularFeeds",
  "mostProlificFeeds",
  "aggregateLanguageData",
] as const satisfies ReadonlyArray<keyof Store>;

export const readMethods = [...lightReadMethods, ...heavyReadMethods] as const;

export type SqliteReadMethod = (typeof readMethods)[number];
