/**
 * What `feeds add <url>` does before storing the feed: discovery. A web page is followed to the
 * feed its `<link rel="alternate">` names, and the feed's title becomes the name when none was
 * given. A URL that cannot be fetched, answers an error status or is no feed is refused with its
 * failure code (the codes ingest records on a feed), as Miniflux refuses it: subscribing to it
 * would only fail at every ingest. `--force` adds it as given, with a warning, for a feed that is
 * down for now or not yet published. An address the fetch rule refuses (ADDRESS_REFUSED) stays
 * refused with --force: ingest would refuse it at every pass too (spec §5.5).
 */
import { FeedServiceError } from "../errors.js";
import { type DiscoveredFeed, discoverFeed } from "../ingest/discover-feed.js";
import { failureOf } from "../ingest/failure-codes.js";
import type { Output } from "./output.js";

/**
 * @example
 * const found = await discoverForAdd("https://blog.example.com/", processOutput, false, {
 *   publicAddressesOnly: true,
 * });
 * await store.addFeed({ feedUrl: found.feedUrl, feedName: name || found.title || host });
 */
export async function discoverForAdd(
  url: string,
  output: Output,
  force: boolean,
  rule: { publicAddressesOnly: boolean },
): Promise<DiscoveredFeed> {
  try {
    return await discoverFeed(url, { totalTimeoutMs: 15_000, connectTimeoutMs: 5_000, ...rule });
  } catch (error) {
    if (!(error instanceof FeedServiceError)) throw error;
    const failure = failureOf(error.code === "FEED_PARSE_FAILED" ? "parse" : "fetch", error);
    const reason = `${failure.code}: ${failure.message.replace(/\.$/, "")}`;
    if (force && failure.code !== "ADDRESS_REFUSED") {
      output.err(`feed-service: ${url} is no readable feed now (${reason}); adding it as given (--force)\n`);
      return { feedUrl: url, title: null, siteUrl: null };
    }
    // The package code (FEED_FETCH_FAILED or FEED_PARSE_FAILED) makes the exit code 1.
    throw new FeedServiceError(
      error.code,
      failure.code === "ADDRESS_REFUSED"
        ? `Not added: ${url} gave ${reason}.`
        : `Not added: ${url} gave ${reason}. Check the address, or add it anyway with --force.`,
    );
  }
}
