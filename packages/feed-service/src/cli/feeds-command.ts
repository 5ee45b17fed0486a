/** `feed-service feeds add|list|remove`. */
import { badArgument, FeedServiceError } from "../errors.js";
import type { FeedAdminRecord } from "../store/store.js";
import {
  cliActor,
  commandGroup,
  findCategory,
  findLanguage,
  parseAction,
  readIdArgument,
  withStore,
} from "./admin-actions.js";
import type { CommandContext } from "./command.js";
import { isoOrNull, printRecords } from "./output.js";
import { webSubView } from "./websub-view.js";

const usage = `usage: feed-service feeds <action> [--database <location>] [--json]

actions:
  list                                   every feed with its health: last success, last
                                         error (code, time, message), failures in a row,
                                         next check, WebSub state (--json: every field of
                                         each feed, and its WebSub hub, topic and lease)
  add <url> [--name <name>] [--category <name|id>] [--language <code|id>] [--force]
                                         subscribe to a feed (a web page is followed to the
                                         feed it links to); prints the new feed's id
                                         (--json: the feed row). A URL that cannot be
                                         fetched, answers an error or is no feed is refused
                                         (exit 1, with its failure code, e.g. HTTP_404 or
                                         CONNECTION_REFUSED); --force adds it anyway.
                                         A loopback, private or link-local address is
                                         refused (ADDRESS_REFUSED, even with --force)
                                         unless --allow-private-fetch (env
                                         FEED_SERVICE_ALLOW_PRIVATE_FETCH=1)
  edit <id> [--name <name>] [--category <name|id|none>] [--language <code|id>]
                                         change a feed's name, category or language
  pause <id> | resume <id>               stop fetching a feed until it is resumed
  refresh <id>                           make a feed due now (the next ingest pass fetches it)
  remove <id>                            unsubscribe, removing the feed's posts`;

/** The table's columns: each is also a field of the `--json` rows, which hold every field. */
const columns = [
  "feedId",
  "feedName",
  "feedUrl",
  "postCount",
  "lastSuccessAt",
  "lastErrorCode",
  "lastErrorAt",
  "consecutiveFailures",
  "nextFetchAt",
  "websub",
  "lastError",
];

/**
 * A feed row for people and scripts: instants as ISO 8601; `consecutiveFailures` names what the
 * store calls `errorCount` (failed refreshes in a row, 0 after a success), which stays for scripts
 * that read it.
 */
function feedView(f: FeedAdminRecord) {
  return {
    ...f,
    lastPostDate: isoOrNull(f.lastPostDate),
    nextFetchAt: isoOrNull(f.nextFetchAt),
    lastFetchedAt: isoOrNull(f.lastFetchedAt),
    lastSuccessAt: isoOrNull(f.lastSuccessAt),
    lastErrorAt: isoOrNull(f.lastErrorAt),
    consecutiveFailures: f.errorCount,
  };
}

function readFeedUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw badArgument(`The feed URL must be an absolute http or https URL; got ${JSON.stringify(text)}.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw badArgument(`The feed URL must use http or https; got ${JSON.stringify(text)}.`);
  }
  return url.href;
}

export const feedsCommand = commandGroup("feeds", "list, add, edit, pause, refresh and remove feeds", usage, {
  async list(argv, context) {
    const parsed = parseAction(argv, {}, context, usage, { min: 0, max: 0 });
    if (!parsed) return 0;
    const json = parsed.values.json === true;
    const [rows, subscriptions] = await withStore(parsed.values, { mode: "read" }, (store) =>
      Promise.all([store.adminFeeds(), store.websub.subscriptions()]),
    );
    // WebSub: null for a feed that names no hub; the table shows the state only.
    const bySubscription = new Map(subscriptions.map((s) => [s.feedId, webSubView(s, Date.now())]));
    const views = rows.map((f) => {
      const websub = bySubscription.get(f.feedId) ?? null;
      return { ...feedView(f), websub: json ? websub : websub?.state };
    });
    printRecords(context.output, views, columns, json);
    return 0;
  },
  async add(argv, context) {
    const parsed = parseAction(
      argv,
      {
        name: { type: "string" },
        category: { type: "string" },
        language: { type: "string" },
        force: { type: "boolean" },
        "allow-private-fetch": { type: "boolean", env: true },
      },
      context,
      usage,
      { min: 1, max: 1 },
    );
    if (!parsed) return 0;
    const { values } = parsed;
    const feedUrl = readFeedUrl(parsed.positionals[0]);
    const name = typeof values.name === "string" ? values.name.trim() : "";
    // The feed is checked before the database opens: a refused feed creates no database.
    // Loaded here: discovery brings the fetcher and the parsers, which listing does not need.
    const { discoverForAdd } = await import("./feed-discovery-hook.js");
    const found = await discoverForAdd(feedUrl, context.output, values.force === true, {
      publicAddressesOnly: values["allow-private-fetch"] !== true,
    });
    const row = await withStore(values, { mode: "create", output: context.output }, async (store) => {
      const category =
        typeof values.category === "string" ? await findCategory(store, values.category) : undefined;
      const language =
        typeof values.language === "string"
          ? await findLanguage(store, values.language, cliActor(context.env))
          : undefined;
      // Without --name: the feed's title, or (with --force) its host until a fetch learns it.
      const feed = {
        feedUrl: found.feedUrl,
        feedName: name || found.title || new URL(found.feedUrl).hostname,
        siteUrl: found.siteUrl,
        categoryId: category?.categoryId ?? null,
        languageId: language?.languageId,
      };
      return store.admin.addFeed(cliActor(context.env), feed, Date.now());
    });
    context.output.out(values.json ? `${JSON.stringify(feedView(row), null, 2)}\n` : `${row.feedId}\n`);
    return 0;
  },
  async edit(argv, context) {
    const parsed = parseAction(
      argv,
      { name: { type: "string" }, category: { type: "string" }, language: { type: "string" } },
      context,
      usage,
      { min: 1, max: 1 },
    );
    if (!parsed) return 0;
    const { values } = parsed;
    const id = readIdArgument(parsed.positionals[0], "feed");
    const actor = cliActor(context.env);
    if (values.name === undefined && values.category === undefined && values.language === undefined) {
      throw badArgument("feeds edit needs --name, --category or --language.");
    }
    const row = await withStore(values, { mode: "read" }, async (store) => {
      const category =
        typeof values.category !== "string"
          ? undefined
          : values.category.trim().toLowerCase() === "none"
            ? null
            : (await findCategory(store, values.category)).categoryId;
      const language =
        typeof values.language === "string"
          ? (await findLanguage(store, values.language, actor)).languageId
          : undefined;
      const edit = {
        feedName: typeof values.name === "string" ? values.name : undefined,
        categoryId: category,
        languageId: language,
      };
      return store.admin.editFeed(actor, id, edit, Date.now());
    });
    context.output.out(values.json ? `${JSON.stringify(feedView(row), null, 2)}\n` : `edited feed ${id}\n`);
    return 0;
  },
  pause: (argv, context) => setPaused(argv, context, true),
  resume: (argv, context) => setPaused(argv, context, false),
  async refresh(argv, context) {
    const parsed = parseAction(argv, {}, context, usage, { min: 1, max: 1 });
    if (!parsed) return 0;
    const id = readIdArgument(parsed.positionals[0], "feed");
    const done = await withStore(parsed.values, { mode: "read" }, (store) =>
      store.admin.refreshFeedNow(cliActor(context.env), id, Date.now()),
    );
    if (!done) throw new FeedServiceError("FEED_NOT_FOUND", `No feed has id ${id}.`);
    context.output.out(parsed.values.json ? `${JSON.stringify({ due: id })}\n` : `feed ${id} is due now\n`);
    return 0;
  },
  async remove(argv, context) {
    const parsed = parseAction(argv, {}, context, usage, { min: 1, max: 1 });
    if (!parsed) return 0;
    const id = readIdArgument(parsed.positionals[0], "feed");
    const removed = await withStore(parsed.values, { mode: "read" }, (store) =>
      store.admin.removeFeed(cliActor(context.env), id, Date.now()),
    );
    if (!removed) throw new FeedServiceError("FEED_NOT_FOUND", `No feed has id ${id}.`);
    context.output.out(parsed.values.json ? `${JSON.stringify({ removed: id })}\n` : `removed feed ${id}\n`);
    return 0;
  },
});

async function setPaused(argv: string[], context: CommandContext, paused: boolean): Promise<number> {
  const parsed = parseAction(argv, {}, context, usage, { min: 1, max: 1 });
  if (!parsed) return 0;
  const id = readIdArgument(parsed.positionals[0], "feed");
  const row = await withStore(parsed.values, { mode: "read" }, (store) =>
    store.admin.setFeedPaused(cliActor(context.env), id, paused, Date.now()),
  );
  context.output.out(
    parsed.values.json
      ? `${JSON.stringify(feedView(row), null, 2)}\n`
      : `${paused ? "paused" : "resumed"} feed ${id}\n`,
  );
  return 0;
}
