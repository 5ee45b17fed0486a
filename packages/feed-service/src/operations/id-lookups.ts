/**
 * The "an id that names nothing is a fault" rule of spec §4, and the smart-category key/id rule of
 * operation 5, as one place that turns a validated id into the record it names or a fault.
 */
import type { Arguments } from "@feed-toolkit/soap";
import { FeedServiceError } from "../errors.js";
import type { CategoryRecord, LanguageRecord, SmartCategoryRecord, Store } from "../store/store.js";
import { describeValue, readId, readString } from "./argument-readers.js";

function notFound(message: string): FeedServiceError {
  return new FeedServiceError("FEED_NOT_FOUND", message);
}

export async function requireCategory(store: Store, id: number): Promise<CategoryRecord> {
  const category = await store.categoryById(id);
  if (!category) throw notFound(`No category has id ${id}.`);
  return category;
}

export async function requireFeed(store: Store, id: number): Promise<void> {
  if (!(await store.feedById(id))) throw notFound(`No feed has id ${id}.`);
}

export async function requireLanguage(store: Store, id: number): Promise<LanguageRecord> {
  const language = await store.languageById(id);
  if (!language) throw notFound(`No language has id ${id}.`);
  return language;
}

/**
 * Operation 5: a non-empty key identifies the smart category, and then the id must be 0 or that
 * category's id; an empty key leaves the id to identify it. A mismatch is a fault.
 */
export async function resolveSmartCategory(store: Store, args: Arguments): Promise<SmartCategoryRecord> {
  const id = readId(args, "smartCategoryId");
  const key = readString(args, "smartCategoryKey", "a smart category key (a UUID) or empty").trim();
  if (key === "") {
    const byId = await store.smartCategoryById(id);
    if (!byId) throw notFound(`No smart category has id ${id}.`);
    return byId;
  }
  // Keys are UUIDs, which clients may send in either case.
  const byKey = (await store.smartCategoryByKey(key)) ?? (await store.smartCategoryByKey(key.toLowerCase()));
  if (!byKey) throw notFound(`No smart category has key ${describeValue(key)}.`);
  if (id !== 0 && id !== byKey.smartCategoryId) {
    throw new FeedServiceError(
      "FEED_BAD_ARGUMENT",
      `The smartCategoryId argument must be 0 or ${byKey.smartCategoryId} (the id of the smart category with key ${describeValue(key)}); got ${id}.`,
    );
  }
  return byKey;
}
