/** `feed-service smart-categories add|list|remove`: saved searches, shared by their UUID key. */
import { badArgument, FeedServiceError } from "../errors.js";
import { smartCategoriesByName } from "../operations/by-name.js";
import { parseSearchQuery } from "../search/parse-search-query.js";
import { cliActor, commandGroup, parseAction, readIdArgument, withStore } from "./admin-actions.js";
import { printRecords } from "./output.js";

const usage = `usage: feed-service smart-categories <action> [--database <location>] [--json]

actions:
  list                                   every smart category, by name
  add <name> --query <search> [--key <uuid>]
                                         save a search (the syntax of the search operation);
                                         prints the new id (--json: the row with its key)
  rename <id> <name>                     rename a smart category (its key and search stay)
  remove <id>                            remove a smart category`;

const columns = ["smartCategoryId", "smartCategoryKey", "smartCategoryName", "smartCategoryQuery"];
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const smartCategoriesCommand = commandGroup(
  "smart-categories",
  "list, add, rename and remove smart categories (saved searches)",
  usage,
  {
    async list(argv, context) {
      const parsed = parseAction(argv, {}, context, usage, { min: 0, max: 0 });
      if (!parsed) return 0;
      // The order of getSmartCategories (spec §4 "by name"), as every other adapter lists them.
      const rows = smartCategoriesByName(
        await withStore(parsed.values, { mode: "read" }, (store) => store.smartCategories()),
      );
      printRecords(context.output, rows, columns, parsed.values.json === true);
      return 0;
    },
    async add(argv, context) {
      const parsed = parseAction(
        argv,
        { query: { type: "string" }, key: { type: "string" } },
        context,
        usage,
        { min: 1, max: 1 },
      );
      if (!parsed) return 0;
      const name = parsed.positionals[0].trim();
      const query = typeof parsed.values.query === "string" ? parsed.values.query.trim() : "";
      const key = typeof parsed.values.key === "string" ? parsed.values.key.trim().toLowerCase() : undefined;
      if (name === "" || name.length > 200) {
        throw badArgument(
          `A smart category name must be 1 to 200 characters; got ${JSON.stringify(parsed.positionals[0])}.`,
        );
      }
      if (query === "" || [...query].length > 256) {
        throw badArgument(
          "--query is required: a search expression of 1 to 256 characters, such as 'flex OR air -jobs'.",
        );
      }
      // A bad operator value (after:yesterday) would fault on every listing: refuse it now.
      parseSearchQuery(query);
      if (key !== undefined && !uuid.test(key)) {
        throw badArgument(
          `--key must be a UUID such as 3f2b8c1e-5d4a-4e7b-9c0d-1a2b3c4d5e6f; got ${JSON.stringify(parsed.values.key)}.`,
        );
      }
      const row = await withStore(parsed.values, { mode: "create", output: context.output }, (store) =>
        store.admin.addSmartCategory(cliActor(context.env), { name, query, key }, Date.now()),
      );
      context.output.out(
        parsed.values.json ? `${JSON.stringify(row, null, 2)}\n` : `${row.smartCategoryId}\n`,
      );
      return 0;
    },
    async rename(argv, context) {
      const parsed = parseAction(argv, {}, context, usage, { min: 2, max: 2 });
      if (!parsed) return 0;
      const id = readIdArgument(parsed.positionals[0], "smart category");
      const row = await withStore(parsed.values, { mode: "read" }, (store) =>
        store.admin.renameSmartCategory(cliActor(context.env), id, parsed.positionals[1], Date.now()),
      );
      context.output.out(
        parsed.values.json ? `${JSON.stringify(row, null, 2)}\n` : `renamed smart category ${id}\n`,
      );
      return 0;
    },
    async remove(argv, context) {
      const parsed = parseAction(argv, {}, context, usage, { min: 1, max: 1 });
      if (!parsed) return 0;
      const id = readIdArgument(parsed.positionals[0], "smart category");
      const removed = await withStore(parsed.values, { mode: "read" }, (store) =>
        store.admin.removeSmartCategory(cliActor(context.env), id, Date.now()),
      );
      if (!removed) throw new FeedServiceError("FEED_NOT_FOUND", `No smart category has id ${id}.`);
      context.output.out(
        parsed.values.json ? `${JSON.stringify({ removed: id })}\n` : `removed smart category ${id}\n`,
      );
      return 0;
    },
  },
);
