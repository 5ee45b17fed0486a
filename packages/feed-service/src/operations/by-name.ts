/**
 * "By name" (spec §4): the lists of categories, smart categories and feeds, compared as people
 * read them. An `Intl.Collator` of the Unicode collation algorithm (CLDR root order, which English
 * uses) puts "Sécurité & Réseaux" between "Sage" and "Sviluppo", where code points would put it
 * after "Zebra". `sensitivity: "accent"` ignores case, as the spec asks, and keeps accents apart
 * ("Apfel" and "Äpfel" differ, "apple" and "APPLE" do not); equal names go by id ascending. The
 * operations sort here, once, so every adapter on every backend shows the same order; the stores'
 * own `name_key` order (Unicode lower case) hands over an almost sorted list, which the sort
 * finishes in a few comparisons per row.
 */
import type { CategoryRecord, FeedRecord, SmartCategoryRecord } from "../store/store.js";

const collator = new Intl.Collator("en", { sensitivity: "accent" });

/**
 * A copy of `records` by name, ties by id ascending.
 *
 * @example
 * byName(feeds, (f) => f.feedName, (f) => f.feedId);
 */
export function byName<T>(records: readonly T[], name: (r: T) => string, id: (r: T) => number): T[] {
  return [...records].sort((a, b) => collator.compare(name(a), name(b)) || id(a) - id(b));
}

/** Categories in the order of getCategories. */
export const categoriesByName = (categories: readonly CategoryRecord[]) =>
  byName(
    categories,
    (c) => c.categoryName,
    (c) => c.categoryId,
  );

/** Smart categories in the order of getSmartCategories. */
export const smartCategoriesByName = (smartCategories: readonly SmartCategoryRecord[]) =>
  byName(
    smartCategories,
    (s) => s.smartCategoryName,
    (s) => s.smartCategoryId,
  );

/** Feeds in the order of getFeeds, getFeedsByCategory and getFeedsByLanguage. */
export const feedsByName = (feeds: readonly FeedRecord[]) =>
  byName(
    feeds,
    (f) => f.feedName,
    (f) => f.feedId,
  );
