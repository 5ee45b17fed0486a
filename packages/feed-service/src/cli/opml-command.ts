/**
 * `feed-service opml import <file|url>` and `feed-service opml export`: subscriptions in and out
 * as OPML, the format every feed reader speaks.
 */
import { readFile } from "node:fs/promises";
import { FeedServiceError } from "../errors.js";
import { feedsByName } from "../operations/by-name.js";
import { cliActor, commandGroup, parseAction, withStore } from "./admin-actions.js";

const usage = `usage: feed-service opml <action> [--database <location>] [--json]

actions:
  import <file|url>      subscribe to every feed of an OPML file (or URL); categories are
                         created from the outlines that hold the feeds. A URL on a loopback,
                         private or link-local address is refused (ADDRESS_REFUSED) unless
                         --allow-private-fetch (env FEED_SERVICE_ALLOW_PRIVATE_FETCH=1)
  export                 print every feed as OPML 2.0 (grouped by category)`;

async function readSource(
  source: string,
  publicAddressesOnly: boolean,
): Promise<{ bytes: Uint8Array; contentType: string | null }> {
  if (/^https?:\/\//i.test(source)) {
    const { fetchFeed } = await import("../ingest/fetch-feed.js");
    const got = await fetchFeed(source, { maxBytes: 5 * 1024 * 1024, publicAddressesOnly });
    if (got.status !== "fetched") throw new FeedServiceError("FEED_FETCH_FAILED", "The server answered 304.");
    return { bytes: got.body, contentType: got.contentType };
  }
  try {
    return { bytes: await readFile(source), contentType: null };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a folder" : "it cannot be read";
    throw new FeedServiceError("FEED_BAD_ARGUMENT", `Cannot import ${JSON.stringify(source)}: ${why}.`);
  }
}

export const opmlCommand = commandGroup("opml", "import and export subscriptions as OPML", usage, {
  async import(argv, context) {
    const parsed = parseAction(
      argv,
      { "allow-private-fetch": { type: "boolean", env: true } },
      context,
      usage,
      { min: 1, max: 1 },
    );
    if (!parsed) return 0;
    // Each action loads what it needs only: the fetcher and the OPML reader are import's.
    const [{ readOpml }, { importSubscriptions }] = await Promise.all([
      import("../opml/opml-reader.js"),
      import("../opml/opml-import.js"),
    ]);
    const { bytes, contentType } = await readSource(
      parsed.positionals[0]!,
      parsed.values["allow-private-fetch"] !== true,
    );
    const subs = readOpml(bytes, contentType);
    const result = await withStore(parsed.values, { mode: "create", output: context.output }, (store) =>
      importSubscriptions(store, subs, cliActor(context.env)),
    );
    if (parsed.values.json) context.output.out(`${JSON.stringify(result, null, 2)}\n`);
    else {
      context.output.out(
        `opml: ${subs.length} feeds in the file: ${result.added} added, ${result.alreadyPresent} already subscribed, ${result.skipped.length} skipped\n`,
      );
      for (const s of result.skipped) context.output.out(`  skipped ${s.feedUrl}: ${s.reason}\n`);
    }
    return 0;
  },
  async export(argv, context) {
    const parsed = parseAction(argv, {}, context, usage, { min: 0, max: 0 });
    if (!parsed) return 0;
    const { writeOpml } = await import("../opml/opml-writer.js");
    const feeds = feedsByName(await withStore(parsed.values, { mode: "read" }, (store) => store.feeds()));
    context.output.out(writeOpml(feeds, new Date()));
    return 0;
  },
});
