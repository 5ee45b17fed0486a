/** `feed-service categories add|list|remove`. */
import { FeedServiceError } from "../errors.js";
import { categoriesByName } from "../operations/by-name.js";
import { cliActor, commandGroup, parseAction, readIdArgument, withStore } from "./admin-actions.js";
import { printRecords } from "./output.js";

const usage = `usage: feed-service categories <action> [--database <location>] [--json]

actions:
  list                 every category with its feed count, by name
  add <name>           add a category; prints its id (--json: the row)
  rename <id> <name>   rename a category
  remove <id>          remove a category (its feeds keep their posts and lose the category)`;

const columns = ["categoryId", "categoryName", "feedCount"];

export const categoriesCommand = commandGroup(
  "categories",
  "list, add, rename and remove categories",
  usage,
  {
    async list(argv, context) {
      const parsed = parseAction(argv, {}, context, usage, { min: 0, max: 0 });
      if (!parsed) return 0;
      // The order of getCategories (spec §4 "by name"), as every other adapter lists them.
      const rows = categoriesByName(
        await withStore(parsed.values, { mode: "read" }, (store) => store.categories()),
      );
      printRecords(context.output, rows, columns, parsed.values.json === true);
      return 0;
    },
    async add(argv, context) {
      const parsed = parseAction(argv, {}, context, usage, { min: 1, max: 1 });
      if (!parsed) return 0;
      const name = parsed.positionals[0].trim();
      if (name === "" || name.length > 200) {
        throw new FeedServiceError(
          "FEED_BAD_ARGUMENT",
          `A category name must be 1 to 200 characters; got ${JSON.stringify(parsed.positionals[0])}.`,
        );
      }
      const row = await withStore(parsed.values, { mode: "create", output: context.output }, (store) =>
        store.admin.addCategory(cliActor(context.env), name, Date.now()),
      );
      context.output.out(parsed.values.json ? `${JSON.stringify(row, null, 2)}\n` : `${row.categoryId}\n`);
      return 0;
    },
    async rename(argv, context) {
      const parsed = parseAction(argv, {}, context, usage, { min: 2, max: 2 });
      if (!parsed) return 0;
      const id = readIdArgument(parsed.positionals[0], "category");
      const row = await withStore(parsed.values, { mode: "read" }, (store) =>
        store.admin.renameCategory(cliActor(context.env), id, parsed.positionals[1], Date.now()),
      );
      context.output.out(
        parsed.values.json ? `${JSON.stringify(row, null, 2)}\n` : `renamed category ${id}\n`,
      );
      return 0;
    },
    async remove(argv, context) {
      const parsed = parseAction(argv, {}, context, usage, { min: 1, max: 1 });
      if (!parsed) return 0;
      const id = readIdArgument(parsed.positionals[0], "category");
      const removed = await withStore(parsed.values, { mode: "read" }, (store) =>
        store.admin.removeCategory(cliActor(context.env), id, Date.now()),
      );
      if (!removed) throw new FeedServiceError("FEED_NOT_FOUND", `No category has id ${id}.`);
      context.output.out(
        parsed.values.json ? `${JSON.stringify({ removed: id })}\n` : `removed category ${id}\n`,
      );
      return 0;
    },
  },
);
