/**
 * What every admin route module is handed: the store, the guard, the page context of a request,
 * the clock, and the fetch rules for addresses people give the site (public-address.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Dispatcher } from "undici";
import { publicAddressAgent } from "../../admin/public-address.js";
import { FeedServiceError } from "../../errors.js";
import type { FeedAdminRecord, Store } from "../../store/store.js";
import { type Html, html } from "../html.js";
import type { PageContext } from "../page-context.js";
import type { AdminGuard, AdminSession } from "./admin-guard.js";
import { sendPage } from "./admin-http.js";
import { type AdminSection, adminDocument, type FieldErrors, visibleText } from "./admin-layout.js";

/** Route options of the admin pages: pages, so kept out of the OpenAPI document. */
export const hidden = { schema: { hide: true } } as const;

export interface AdminKit {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly guard: AdminGuard;
  readonly now: () => number;
  context(request: FastifyRequest): PageContext;
  /** The agent for addresses people give the site: public addresses only unless the operator allows. */
  agent(): Dispatcher;
  /** Fetches a feed now (after an approval or "refresh now"); its outcome lands in its health. */
  fetchNow(feed: FeedAdminRecord, dispatcher?: Dispatcher): Promise<void>;
  /** Answers an admin page for the signed-in administrator. */
  send(
    request: FastifyRequest,
    reply: FastifyReply,
    session: AdminSession,
    page: { title: string; section: AdminSection; notice?: string | null; main: Html; status?: number },
  ): void;
  readonly logError: (message: string) => void;
}

export function createAdminKit(options: {
  app: FastifyInstance;
  store: Store;
  guard: AdminGuard;
  now: () => number;
  context: (request: FastifyRequest) => PageContext;
  allowPrivateFetch: boolean;
  logError: (message: string) => void;
}): AdminKit {
  let agent: Dispatcher | undefined;
  return {
    app: options.app,
    store: options.store,
    guard: options.guard,
    now: options.now,
    context: options.context,
    logError: options.logError,
    agent() {
      agent ??= publicAddressAgent({ allowPrivate: options.allowPrivateFetch });
      return agent;
    },
    async fetchNow(feed, dispatcher) {
      // Loaded on first use: the fetcher, parsers and sanitiser are ingest's, not every page's.
      const [{ refreshFeed }, { FetchLimiter }] = await Promise.all([
        import("../../ingest/refresh-feed.js"),
        import("../../ingest/fetch-limiter.js"),
      ]);
      await refreshFeed(feed, {
        store: options.store,
        limiter: new FetchLimiter(),
        dispatcher,
        now: options.now,
      });
    },
    send(request, reply, session, page) {
      sendPage(reply, page.status ?? 200, adminDocument(page, session, options.context(request)));
    },
  };
}

/**
 * The messages of a refused change, by field: a FEED_BAD_ARGUMENT or FEED_CONFLICT goes beside
 * `fieldName` (the form's own error with ""); anything else is not the person's doing and is thrown.
 */
export function fieldErrorsOf(error: unknown, fieldName: string): FieldErrors {
  if (
    error instanceof FeedServiceError &&
    ["FEED_BAD_ARGUMENT", "FEED_CONFLICT", "FEED_NOT_FOUND"].includes(error.code)
  ) {
    return { [fieldName]: error.message };
  }
  throw error;
}

/** The id in a route's `:id`, or a FEED_NOT_FOUND (an id that is not a number names nothing). */
export function routeId(request: FastifyRequest, what: string): number {
  const text = (request.params as Record<string, string>).id ?? "";
  const n = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new FeedServiceError("FEED_NOT_FOUND", `No ${what} has id ${JSON.stringify(text.slice(0, 40))}.`);
  return n;
}

/** A notice chosen by a fixed code in the query (`?done=added`): no text from the address is shown. */
export function doneNotice(
  request: FastifyRequest,
  notices: Readonly<Record<string, string>>,
): string | null {
  const done = (request.query as Record<string, unknown> | undefined)?.done;
  return typeof done === "string" && Object.hasOwn(notices, done) ? notices[done]! : null;
}

/** A `<select>` of categories with "none" first. */
export function categorySelect(
  id: string,
  name: string,
  categories: ReadonlyArray<{ categoryId: number; categoryName: string }>,
  selected: number | null,
): Html {
  return html`<select id="${id}" name="${name}"><option value="">(none)</option>${categories.map(
    (c) =>
      html`<option value="${String(c.categoryId)}"${c.categoryId === selected ? html` selected` : ""}>${visibleText(c.categoryName, 100)}</option>`,
  )}</select>`;
}
