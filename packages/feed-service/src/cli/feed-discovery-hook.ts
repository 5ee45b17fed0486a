/**
 * What `feeds add <url>` does before storing the feed: discovery. A web page is followed to the
 * feed its `<link rel="alternate">` names, and the feed's title becomes the name when none was
 * given. A URL that cannot be fetched right now is added as given, with a warning (the next
 * ingest retries it and records any error on the feed); a page that can be fetched but is no feed
 * and names none is refused, since subscribing to it could never work.
 */
import { FeedServiceError } from "../errors.js";
import { type DiscoveredFeed, discoverFeed } from "../ingest/discover-feed.js";
import type { Output } from "./output.js";

/**
 * @example
 * const found = await discoverForAdd("https://blog.example.com/", processOutput);
 * await store.addFeed({ feedUrl: found.feedUrl, feedName: name || found.title || host });
 */
export async function discoverForAdd(url: string, output: Output): Promise<DiscoveredFeed> {
  try {
    return await discoverFeed(url, { totalTimeoutMs: 15_000, connectTimeoutMs: 5_000 });
  } catch (error) {
    if (error instanceof FeedServiceError && error.code === "FEED_FETCH_FAILED") {
      output.err(
        `feed-service: could not fetch ${url} (${error.message}); adding it as given, the next ingest retries it\n`,
      );
      return { feedUrl: url, title: null, siteUrl: null };
    }
    if (error instanceof FeedServiceError) {
      throw new FeedServiceError("FEED_PARSE_FAILED", `No feed found at ${url}: ${error.message}`);
    }
    throw error;
  }
}
