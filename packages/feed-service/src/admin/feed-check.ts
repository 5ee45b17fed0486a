/**
 * Checking an address someone gives the site (a visitor's suggestion, an administrator's new
 * feed) before it is kept: an absolute http(s) URL, fetched under the public-address rule
 * (public-address.ts) with a size cap, and a feed, or a page that names one (autodiscovery).
 * Every refusal is a FEED_BAD_ARGUMENT whose message says what was wrong in plain words.
 */
import type { Dispatcher } from "undici";
import { badArgument, FeedServiceError } from "../errors.js";
import { type DiscoveredFeed, discoverFeed } from "../ingest/discover-feed.js";
import { failureOf } from "../ingest/failure-codes.js";
import { refusalIn } from "./public-address.js";

/** A suggested page or feed may be this large: a feed of hundreds of posts is well below it. */
export const suggestionMaxBytes = 2 * 1024 * 1024;

/** The address as typed, if it is an absolute http or https URL of at most 2048 characters. */
export function readWebAddress(text: string): URL {
  const t = text.trim();
  if (t === "") throw badArgument("Give the address of a site or feed, starting with http:// or https://.");
  if (t.length > 2048) throw badArgument(`The address must be at most 2048 characters; got ${t.length}.`);
  let url: URL;
  try {
    url = new URL(t);
  } catch {
    throw badArgument("The address must be a full web address starting with http:// or https://.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw badArgument(
      `The address must start with http:// or https://; ${url.protocol.replace(":", "")}: addresses are not accepted.`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw badArgument("The address must not hold a user name or password.");
  }
  return url;
}

/**
 * @example
 * const found = await checkFeedAddress("https://blog.example/", { dispatcher: publicAddressAgent({ allowPrivate: false }) });
 */
export async function checkFeedAddress(
  text: string,
  opts: { dispatcher: Dispatcher; maxBytes?: number },
): Promise<DiscoveredFeed & { url: string }> {
  const url = readWebAddress(text);
  const maxBytes = opts.maxBytes ?? suggestionMaxBytes;
  try {
    const found = await discoverFeed(url.href, {
      dispatcher: opts.dispatcher,
      maxBytes,
      totalTimeoutMs: 15_000,
      maxRedirects: 5,
    });
    return { url: url.href, ...found };
  } catch (error) {
    const refusal = refusalIn(error);
    if (refusal) {
      throw badArgument(`That address is refused: ${refusal.message} Suggest a site on the public internet.`);
    }
    if (!(error instanceof FeedServiceError)) throw error;
    const failure = failureOf(error.code === "FEED_PARSE_FAILED" ? "parse" : "fetch", error);
    const why: Record<string, string> = {
      TOO_LARGE: `the page is larger than the ${maxBytes / 1024 / 1024} MiB a suggestion may be`,
      PARSE_NOT_A_FEED: "it is a web page that names no feed (no RSS, Atom or JSON Feed link)",
      NOT_TEXT: "it serves a file that is not a feed",
      DNS: `the host ${url.hostname} was not found`,
      HTTP_404: "its server answers 404 Not Found",
    };
    throw badArgument(
      `No feed could be read at that address: ${why[failure.code] ?? failure.message.replace(/\.$/, "")} (${failure.code}).`,
    );
  }
}
