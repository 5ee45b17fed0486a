/**
 * The output feeds (spec §5.2): recent posts, a category's, a smart category's and a search's, as
 * RSS 2.0, Atom 1.0 or JSON Feed 1.1, each with `languageIds` and `limit` (default 50, at most
 * 200). A handler reads the arguments, calls the operation, and renders the posts; answers of
 * pure operations come from the answer cache while the data is unchanged. Both validators are
 * sent (ETag from the bytes, Last-Modified from the change clock) and either kind of conditional
 * request gets 304. Errors are problem documents, as in the JSON API. Each feed's title starts
 * with the site's name (`--site-name`), so a reader's list of subscriptions says whose it is.
 */
import type { Arguments } from "@feed-toolkit/soap";
import type { FastifyReply, FastifyRequest } from "fastify";
import { inQueryTerms, smartCategoryArguments } from "../api/api-arguments.js";
import { badArgument } from "../errors.js";
import { requestBaseUrl } from "../http/base-url.js";
import { entityTag, notModified } from "../http/conditional-get.js";
import { plainProblem, sendOperationError, sendProblem } from "../http/problem-details.js";
import type { ResponseCache } from "../http/response-cache.js";
import { answerBody } from "../http/sliced-body.js";
import type { ServiceMetrics } from "../metrics/service-metrics.js";
import { describeValue } from "../operations/argument-readers.js";
import type { PostItem } from "../operations/column-sets.js";
import type { OperationRunner } from "../operations/operation-runner.js";
import type { Store } from "../store/store.js";
import { ChangeClock } from "./change-clock.js";
import { type FeedFormat, type FeedMeta, feedContentTypes, renderFeed } from "./feed-documents.js";
import { itemTagSetting, proposedItemTag } from "./item-ids.js";

export const defaultFeedLimit = 50;
export const maxFeedLimit = 200;

export interface OutputFeedsOptions {
  readonly store: Store;
  readonly runner: OperationRunner;
  readonly publicUrl: string | undefined;
  readonly cache: ResponseCache | undefined;
  readonly metrics: ServiceMetrics;
  readonly now?: () => number;
  readonly logError: (message: string) => void;
  /** The site's name, first in every feed's title. */
  readonly siteName: string;
}

type FeedRequest = FastifyRequest<{
  Params: { format: string; categoryId?: string; idOrKey?: string };
  Querystring: Record<string, unknown>;
}>;

/** What one kind of output feed asks of the operation table, and how it names itself. */
interface FeedKind {
  readonly operation: string;
  /** The operation's arguments besides limit and languageIds. */
  args(request: FeedRequest): Arguments;
  /** Title, description and web page (path and query) of the feed. */
  describe(
    request: FeedRequest,
    runner: OperationRunner,
    baseUrl: string,
  ): Promise<Omit<FeedMeta, "selfUrl" | "itemTag" | "path">>;
}

function queryText(request: FeedRequest, name: string): string | undefined {
  const value = request.query[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === null ? undefined : String(first);
}

/** `limit` of an output feed: a whole number from 0 to 200 (spec §5.2), 50 when not sent. */
function readFeedLimit(request: FeedRequest): number {
  const text = queryText(request, "limit");
  if (text === undefined) return defaultFeedLimit;
  const n = /^\s*\d{1,4}\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 0 && n <= maxFeedLimit)) {
    throw badArgument(
      `The limit query parameter of an output feed must be a whole number from 0 to ${maxFeedLimit}; got ${describeValue(text)}.`,
    );
  }
  return n;
}

async function nameOf(
  runner: OperationRunner,
  operation: string,
  baseUrl: string,
  match: (record: Record<string, unknown>) => boolean,
  column: string,
): Promise<string | undefined> {
  const records = await runner.call(operation, {}, { baseUrl });
  const found = records.find(match);
  return found === undefined ? undefined : String(found[column]);
}

/** The four kinds of spec §5.2, by route. */
export const feedKinds = {
  recent: {
    operation: "getMostRecentPosts",
    args: () => ({ offset: 0 }),
    async describe(_request, _runner, baseUrl) {
      return {
        title: "Recent posts",
        description: "The newest posts of every feed.",
        pageUrl: `${baseUrl}/`,
      };
    },
  },
  category: {
    operation: "getPostsByCategory",
    args: (request) => ({ offset: 0, categoryId: request.params.categoryId ?? "", sincepost: null }),
    async describe(request, runner, baseUrl) {
      const id = Number(request.params.categoryId);
      const name = await nameOf(runner, "getCategories", baseUrl, (c) => c.categoryId === id, "categoryName");
      return {
        title: `Category: ${name ?? id}`,
        description: `The newest posts of the feeds in the category ${name ?? id}.`,
        pageUrl: `${baseUrl}/categories/${id}`,
      };
    },
  },
  smartCategory: {
    operation: "getPostsBySmartCategory",
    args: (request) => ({ offset: 0, ...smartCategoryArguments(request.params.idOrKey ?? "") }),
    async describe(request, runner, baseUrl) {
      const idOrKey = request.params.idOrKey ?? "";
      const key = idOrKey.toLowerCase();
      const name = await nameOf(
        runner,
        "getSmartCategories",
        baseUrl,
        (s) => String(s.smartCategoryId) === idOrKey || String(s.smartCategoryKey).toLowerCase() === key,
        "smartCategoryName",
      );
      return {
        title: `Smart category: ${name ?? idOrKey}`,
        description: `The newest posts matching the smart category ${name ?? idOrKey}.`,
        pageUrl: `${baseUrl}/smart-categories/${encodeURIComponent(idOrKey)}`,
      };
    },
  },
  search: {
    operation: "search",
    // Newest first: what a feed reader shows anyway, and it keeps items from reshuffling.
    args(request) {
      const q = queryText(request, "q");
      if (q === undefined) {
        throw badArgument(
          "The q query parameter is required (the search terms of the feed) but was not sent.",
        );
      }
      return { offset: 0, searchTerms: q, sortBy: "date" };
    },
    async describe(request, _runner, baseUrl) {
      const q = queryText(request, "q") ?? "";
      return {
        title: `Search: ${q}`,
        description: `The newest posts matching ${JSON.stringify(q)}.`,
        pageUrl: `${baseUrl}/search?${new URLSearchParams({ q })}`,
      };
    },
  },
} satisfies Record<string, FeedKind>;

const formats = new Set<string>(["rss", "atom", "json"]);

/** The search feed's `q` is the search operation's searchTerms: its messages say `q`. */
const renamed = new Map([["searchTerms", "q"]]);

export function createOutputFeeds(options: OutputFeedsOptions) {
  const { store, runner, publicUrl, cache, metrics, logError, siteName } = options;
  const now = options.now ?? Date.now;
  const clock = new ChangeClock();
  let itemTag: Promise<string> | undefined;
  /** The install's tagging entity, read (or chosen) once per process; asked again after a failure. */
  function installItemTag(): Promise<string> {
    itemTag ??= store.installSetting(itemTagSetting, () => proposedItemTag(publicUrl, now()));
    return itemTag.catch((error: unknown) => {
      itemTag = undefined;
      throw error;
    });
  }

  function send(
    request: FeedRequest,
    reply: FastifyReply,
    format: FeedFormat,
    body: Buffer,
    etag: string,
  ): FastifyReply {
    const lastModified = clock.lastModified(request.url, etag, now());
    reply
      .header("etag", etag)
      .header("last-modified", new Date(lastModified).toUTCString())
      .header("cache-control", "public, max-age=30")
      .header("access-control-allow-origin", "*");
    if (notModified(request.headers, etag, lastModified)) return reply.code(304).send();
    // A large feed is written a slice per turn of the event loop (http/sliced-body.ts); the async
    // handler returns the reply, as Fastify needs for a streamed body.
    return reply
      .code(200)
      .header("content-type", feedContentTypes[format])
      .header("content-length", body.length)
      .send(answerBody(body));
  }

  /** The handler of one kind of feed, whose route ends in `.:format`. */
  function route(kind: FeedKind) {
    const pure = runner.operation(kind.operation)?.pure === true;
    return async function outputFeed(request: FeedRequest, reply: FastifyReply): Promise<FastifyReply> {
      const format = request.params.format;
      if (!formats.has(format)) {
        reply.header("access-control-allow-origin", "*");
        const detail = `An output feed ends in .rss, .atom or .json; got .${format.slice(0, 20)}.`;
        sendProblem(reply, plainProblem(404, detail, "FEED_NOT_FOUND"));
        return reply;
      }
      const baseUrl = requestBaseUrl(request.raw, publicUrl);
      const key = pure ? cache?.key(request.url, "feed", baseUrl) : undefined;
      const { version, hit } = (await cache?.lookup(key, () => store.dataVersion())) ?? {};
      if (pure) metrics.answerCache(hit ? "hit" : key !== undefined ? "miss" : "skip");
      if (hit?.etag !== undefined) return send(request, reply, format as FeedFormat, hit.body, hit.etag);
      try {
        const args = {
          ...kind.args(request),
          limit: readFeedLimit(request),
          languageIds: queryText(request, "languageIds") ?? "",
        };
        const posts = (await runner.call(kind.operation, args, { baseUrl })) as unknown as PostItem[];
        const described = await kind.describe(request, runner, baseUrl);
        const meta = {
          ...described,
          title: `${siteName} — ${described.title}`,
          selfUrl: baseUrl + request.url,
          itemTag: await installItemTag(),
          path: request.url,
        };
        const body = Buffer.from(renderFeed(format as FeedFormat, meta, posts), "utf8");
        const etag = entityTag(body);
        if (key !== undefined && version !== undefined) {
          const contentType = feedContentTypes[format as FeedFormat];
          cache?.set(key, { version, contentType, body, etag, operation: kind.operation });
        }
        return send(request, reply, format as FeedFormat, body, etag);
      } catch (error) {
        reply.header("access-control-allow-origin", "*");
        sendOperationError(reply, inQueryTerms(error, renamed), logError, `GET ${request.url.split("?")[0]}`);
        return reply;
      }
    };
  }

  /** A feed's path asked with a method other than GET or HEAD: 405 with `Allow`. */
  async function methodNotAllowed(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    reply.header("access-control-allow-origin", "*").header("allow", "GET, HEAD");
    const path = JSON.stringify(request.url.split("?")[0].slice(0, 100));
    const detail = `The output feed ${path} answers GET and HEAD only; got ${request.method}.`;
    sendProblem(reply, plainProblem(405, detail, "FEED_METHOD_NOT_ALLOWED"));
  }

  /** A path under /feeds/ that looks like an output feed but is none of them. */
  function notFound(request: FastifyRequest, reply: FastifyReply): void {
    reply.header("access-control-allow-origin", "*");
    const path = JSON.stringify(request.url.split("?")[0].slice(0, 100));
    const detail = `No output feed has the path ${path}; they are /feeds/recent.{ext}, /feeds/categories/{categoryId}.{ext}, /feeds/smart-categories/{idOrKey}.{ext} and /feeds/search.{ext}?q=…, with {ext} rss, atom or json.`;
    sendProblem(reply, plainProblem(404, detail, "FEED_NOT_FOUND"));
  }

  return { route, methodNotAllowed, notFound };
}
