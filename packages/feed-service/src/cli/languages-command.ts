/** `feed-service languages list|add`. */
import { badArgument, FeedServiceError } from "../errors.js";
import {
  cliActor,
  commandGroup,
  parseAction,
  readIdArgument,
  readLanguageTag,
  withStore,
} from "./admin-actions.js";
import { printRecords } from "./output.js";

const usage = `usage: feed-service languages <action> [--database <location>] [--json]

actions:
  list                        every language, by id (id 1 is English)
  add <code> [--name <name>]  the language a BCP 47 tag files under (fr-CA -> fr; pt-BR,
                              pt-PT, zh-Hans, zh-Hant apart), created when new;
                              prints its id (--json: the row)
  rename <id> <name>          rename a language
  remove <id>                 remove a language no feed or post uses (the built-in
                              English and Undetermined stay)`;

const columns = ["languageId", "languageCode", "languageName"];

export const languagesCommand = commandGroup("languages", "list, add, rename and remove languages", usage, {
  async list(argv, context) {
    const parsed = parseAction(argv, {}, context, usage, { min: 0, max: 0 });
    if (!parsed) return 0;
    const rows = await withStore(parsed.values, { mode: "read" }, (store) => store.languages());
    printRecords(context.output, rows, columns, parsed.values.json === true);
    return 0;
  },
  async add(argv, context) {
    const parsed = parseAction(argv, { name: { type: "string" } }, context, usage, { min: 1, max: 1 });
    if (!parsed) return 0;
    const code = parsed.positionals[0];
    if (/^\d+$/.test(code.trim()))
      throw badArgument(`languages add takes a BCP 47 tag such as fr or pt-BR; got ${JSON.stringify(code)}.`);
    const name = typeof parsed.values.name === "string" ? parsed.values.name.trim() : undefined;
    const tag = readLanguageTag(code);
    const row = await withStore(parsed.values, { mode: "create", output: context.output }, (store) =>
      store.admin.addLanguage(cliActor(context.env), tag, name || undefined, Date.now()),
    );
    context.output.out(parsed.values.json ? `${JSON.stringify(row, null, 2)}\n` : `${row.languageId}\n`);
    return 0;
  },
  async rename(argv, context) {
    const parsed = parseAction(argv, {}, context, usage, { min: 2, max: 2 });
    if (!parsed) return 0;
    const id = readIdArgument(parsed.positionals[0], "language");
    const row = await withStore(parsed.values, { mode: "read" }, (store) =>
      store.admin.renameLanguage(cliActor(context.env), id, parsed.positionals[1], Date.now()),
    );
    context.output.out(parsed.values.json ? `${JSON.stringify(row, null, 2)}\n` : `renamed language ${id}\n`);
    return 0;
  },
  async remove(argv, context) {
    const parsed = parseAction(argv, {}, context, usage, { min: 1, max: 1 });
    if (!parsed) return 0;
    const id = readIdArgument(parsed.positionals[0], "language");
    const removed = await withStore(parsed.values, { mode: "read" }, (store) =>
      store.admin.removeLanguage(cliActor(context.env), id, Date.now()),
    );
    if (!removed) throw new FeedServiceError("FEED_NOT_FOUND", `No language has id ${id}.`);
    context.output.out(
      parsed.values.json ? `${JSON.stringify({ removed: id })}\n` : `removed language ${id}\n`,
    );
    return 0;
  },
});
