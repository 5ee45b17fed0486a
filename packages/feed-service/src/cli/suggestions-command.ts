/**
 * `feed-service suggestions list|approve|reject`: what visitors suggested at /suggest, and the
 * same decisions as /admin/suggestions, through the same store calls and audit log.
 */
import { visibleText } from "../admin/visible-text.js";
import { badArgument, FeedServiceError } from "../errors.js";
import type { SuggestionState } from "../store/admin-store.js";
import { cliActor, commandGroup, parseAction, readIdArgument, withStore } from "./admin-actions.js";
import { isoOrNull, printRecords } from "./output.js";

const usage = `usage: feed-service suggestions <action> [--database <location>] [--json]

actions:
  list [--state waiting|approved|rejected|all]
                     suggestions (default: those waiting), oldest first
  approve <id>       add the suggested feed (the next ingest pass fetches it)
  reject <id>        turn the suggestion down`;

const columns = ["suggestionId", "state", "feedUrl", "feedTitle", "categoryId", "note", "createdAt"];
const states = ["waiting", "approved", "rejected", "all"];

export const suggestionsCommand = commandGroup(
  "suggestions",
  "list visitors' feed suggestions, approve or reject them",
  usage,
  {
    async list(argv, context) {
      const parsed = parseAction(argv, { state: { type: "string" } }, context, usage, { min: 0, max: 0 });
      if (!parsed) return 0;
      const state = typeof parsed.values.state === "string" ? parsed.values.state : "waiting";
      if (!states.includes(state)) {
        throw badArgument(`--state must be one of ${states.join(", ")}; got ${JSON.stringify(state)}.`);
      }
      const rows = await withStore(parsed.values, { mode: "read" }, (store) =>
        store.admin.suggestions(state === "all" ? undefined : (state as SuggestionState)),
      );
      // Visitors' text reaches a terminal, which would obey its escape sequences: shown, not sent.
      const views = rows.map((s) => ({
        ...s,
        url: visibleText(s.url, 2048),
        feedUrl: visibleText(s.feedUrl, 2048),
        feedTitle: s.feedTitle === null ? null : visibleText(s.feedTitle, 500),
        note: visibleText(s.note, 1000),
        createdAt: isoOrNull(s.createdAt),
        decidedAt: isoOrNull(s.decidedAt),
      }));
      printRecords(context.output, views, columns, parsed.values.json === true);
      return 0;
    },
    async approve(argv, context) {
      const parsed = parseAction(argv, {}, context, usage, { min: 1, max: 1 });
      if (!parsed) return 0;
      const id = readIdArgument(parsed.positionals[0], "suggestion");
      const feed = await withStore(parsed.values, { mode: "read" }, async (store) => {
        const s = await store.admin.suggestionById(id);
        if (!s) throw new FeedServiceError("FEED_NOT_FOUND", `No suggestion has id ${id}.`);
        const name = (s.feedTitle || new URL(s.feedUrl).hostname).slice(0, 500);
        return store.admin.approveSuggestion(
          cliActor(context.env),
          id,
          { feedUrl: s.feedUrl, feedName: name, categoryId: s.categoryId },
          Date.now(),
        );
      });
      context.output.out(parsed.values.json ? `${JSON.stringify(feed, null, 2)}\n` : `${feed.feedId}\n`);
      return 0;
    },
    async reject(argv, context) {
      const parsed = parseAction(argv, {}, context, usage, { min: 1, max: 1 });
      if (!parsed) return 0;
      const id = readIdArgument(parsed.positionals[0], "suggestion");
      await withStore(parsed.values, { mode: "read" }, (store) =>
        store.admin.rejectSuggestion(cliActor(context.env), id, Date.now()),
      );
      context.output.out(
        parsed.values.json ? `${JSON.stringify({ rejected: id })}\n` : `rejected suggestion ${id}\n`,
      );
      return 0;
    },
  },
);
