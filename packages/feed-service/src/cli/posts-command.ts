/** `feed-service posts duplicates`: the copies merged into stories (one story once), for review, and undo. */
import { visibleText } from "../admin/visible-text.js";
import { FeedServiceError } from "../errors.js";
import { commandGroup, parseAction, readIdArgument, withStore } from "./admin-actions.js";
import { readIntegerOption } from "./command-line.js";
import { isoOrNull, printRecords } from "./output.js";

const usage = `usage: feed-service posts <action> [--database <location>] [--json]

actions:
  duplicates [--limit 50]     the copies merged into a story, newest merge first: the story's
                              id, feed and title, the copy's feed, guid, link and title, and
                              what matched (link: the same canonical link; text: the same text
                              within three days)
  duplicates --undo <storyId> split a story again: each of its copies becomes a post of its
                              own feed; exit 1 when the story has no copies`;

const columns = ["storyId", "storyFeedId", "storyTitle", "copyFeedId", "copyLink", "mergedBy", "mergedAt"];

export const postsCommand = commandGroup("posts", "review and undo the copies merged into one story", usage, {
  async duplicates(argv, context) {
    const parsed = parseAction(
      argv,
      { limit: { type: "string" }, undo: { type: "string" } },
      context,
      usage,
      {
        min: 0,
        max: 0,
      },
    );
    if (!parsed) return 0;
    if (typeof parsed.values.undo === "string") {
      const storyId = readIdArgument(parsed.values.undo, "story");
      const split = await withStore(parsed.values, { mode: "read" }, (store) => store.splitStory(storyId));
      if (!split)
        throw new FeedServiceError("FEED_NOT_FOUND", `No story with id ${storyId} has copies to split.`);
      context.output.out(
        parsed.values.json ? `${JSON.stringify({ split: storyId })}\n` : `split story ${storyId}\n`,
      );
      return 0;
    }
    const limit = readIntegerOption(parsed.values, "limit", 50, 1, 10_000);
    const rows = await withStore(parsed.values, { mode: "read" }, (store) => store.storyMerges(limit));
    // Titles, guids and links come from feeds: a terminal must not receive their control characters.
    const views = rows.map((r) => ({
      ...r,
      storyTitle: visibleText(r.storyTitle),
      copyGuid: visibleText(r.copyGuid),
      copyLink: visibleText(r.copyLink),
      copyTitle: visibleText(r.copyTitle),
      mergedAt: isoOrNull(r.mergedAt),
    }));
    printRecords(context.output, views, columns, parsed.values.json === true);
    return 0;
  },
});
