/**
 * The store stage of ingest: a processed feed document becomes one `applyFeedUpdate` transaction
 * (identities resolved against the stored posts, languages looked up, feed metadata learnt).
 * Polled fetches (refresh-feed.ts) and WebSub pushes (websub/pushed-content.ts) both end here,
 * so a post is stored the same way whichever way it arrived.
 */
import { FeedServiceError } from "../errors.js";
import type {
  FeedAdminRecord,
  FeedFetchState,
  FeedUpdate,
  FeedUpdateResult,
  IncomingPost,
  Store,
} from "../store/store.js";
import { declaredTag } from "./detect-language.js";
import type { FeedUpdateWriter } from "./feed-write-batch.js";
import { entryStoryLink } from "./normalised-entry.js";
import type { DocumentForStore } from "./process-document.js";
import { identityLookup, resolveIdentities } from "./unstable-guids.js";

export interface StoreDocumentContext {
  store: Store;
  /** Language tag -> row id, shared across the feeds of a pass. */
  languageIds?: Map<string, number>;
  /** Where the update goes: an ingest pass's write batch (feed-write-batch.ts), else the store. */
  writer?: FeedUpdateWriter;
}

export interface DocumentWrite {
  /** The URL the document came from: the link of entries that have none and no site link. */
  sourceUrl: string;
  now: number;
  /** The fetch state saved in the same transaction (a push saves none). */
  fetchState: Partial<FeedFetchState>;
  /** The feed's new URL after permanent redirects. */
  movedTo?: string;
}

async function languageId(ctx: StoreDocumentContext, tag: string): Promise<number> {
  if (!ctx.languageIds) ctx.languageIds = new Map();
  const cache = ctx.languageIds;
  const known = cache.get(tag);
  if (known !== undefined) return known;
  const row = await ctx.store.ensureLanguage(tag);
  cache.set(tag, row.languageId);
  return row.languageId;
}

/** Applies an update; if the new feed URL clashes with another feed, saves without moving it. */
export async function applyUpdate(writer: FeedUpdateWriter, feedId: number, update: FeedUpdate) {
  try {
    return await writer.applyFeedUpdate(feedId, update);
  } catch (error) {
    if (error instanceof FeedServiceError && error.code === "FEED_CONFLICT" && update.feed?.feedUrl) {
      const { feedUrl: _dropped, ...feed } = update.feed;
      return writer.applyFeedUpdate(feedId, { ...update, feed });
    }
    throw error;
  }
}

function isPlaceholderName(feed: FeedAdminRecord): boolean {
  const name = feed.feedName.trim();
  let host = "";
  let hostname = "";
  try {
    ({ host, hostname } = new URL(feed.feedUrl));
  } catch {}
  return name === "" || name === feed.feedUrl || name === host || name === hostname;
}

/**
 * Stores a processed document's posts and what it says about the feed, in one transaction.
 *
 * @example
 * const doc = processFeedDocument(body, contentType, url, now);
 * const { inserted } = await storeDocument({ store }, feed, doc, { sourceUrl: url, now, fetchState: {} });
 */
export async function storeDocument(
  ctx: StoreDocumentContext,
  feed: FeedAdminRecord,
  doc: DocumentForStore,
  write: DocumentWrite,
): Promise<FeedUpdateResult> {
  const lookup = identityLookup(doc.entries);
  const stored = lookup.unique.length === 0 ? [] : await ctx.store.postKeys(feed.feedId, lookup.keys);
  const identities = resolveIdentities(lookup, stored);
  const languageIds = new Map<string, number>();
  for (const tag of new Set(doc.entries.map((e) => e.language)))
    languageIds.set(tag, await languageId(ctx, tag));
  const posts: IncomingPost[] = [];
  for (const { entry, guid } of identities) {
    posts.push({
      guid,
      link: entry.link ?? doc.metadata.siteUrl ?? write.sourceUrl,
      title: entry.title,
      excerpt: entry.excerpt,
      content: entry.content,
      publishedAt: entry.publishedAt,
      updatedAt: entry.updatedAt,
      seenAt: write.now,
      languageId: languageIds.get(entry.language)!,
      // Only a link of the entry's own names its story (the fallbacks above are the site's).
      storyLink: entryStoryLink(entry),
      storyKeys: entry.storyKeys,
      indexText: entry.indexText,
    });
  }
  const feedTag = declaredTag(doc.metadata.language);
  const meta: FeedUpdate["feed"] = write.movedTo ? { feedUrl: write.movedTo } : {};
  // A name the operator gave is kept; a placeholder (URL or host) is replaced by the feed's title.
  if (doc.metadata.title && isPlaceholderName(feed)) meta.feedName = doc.metadata.title;
  if (doc.metadata.siteUrl && !feed.siteUrl) meta.siteUrl = doc.metadata.siteUrl;
  if (doc.metadata.description && !feed.feedDescription) meta.feedDescription = doc.metadata.description;
  if (feedTag) meta.languageId = await languageId(ctx, feedTag);
  return applyUpdate(ctx.writer ?? ctx.store, feed.feedId, {
    posts,
    feed: meta,
    fetchState: write.fetchState,
  });
}
