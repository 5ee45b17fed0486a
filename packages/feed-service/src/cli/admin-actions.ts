/**
 * What the admin command groups share: dispatching `<group> <action>`, opening the database for
 * one action and closing it afterwards, and reading ids and names given on the command line.
 */
import { userInfo } from "node:os";
import { badArgument, FeedServiceError } from "../errors.js";
import { canonicalLanguageTag, filingTag } from "../store/language-tags.js";
import type { CategoryRecord, LanguageRecord, Store } from "../store/store.js";
import type { Actions, Command, CommandContext } from "./command.js";
import type { Env } from "./command-line.js";
import { type OptionSpecs, type ParsedCommandLine, parseCommandLine } from "./command-line.js";
import { type DatabaseAccess, databaseLocation, databaseOption, openDatabase } from "./database-option.js";

/** Builds a command that dispatches on its first argument (`feeds add …`). */
export function commandGroup(name: string, summary: string, usage: string, actions: Actions): Command {
  return {
    name,
    summary,
    usage,
    async run(argv, context) {
      const [action, ...rest] = argv;
      if (action === undefined || action === "--help" || action === "-h") {
        context.output.out(`${usage}\n`);
        return action === undefined ? 2 : 0;
      }
      const run = Object.hasOwn(actions, action) ? actions[action] : undefined;
      if (!run) {
        throw badArgument(
          `${name} has no action ${JSON.stringify(action)}; the actions are ${Object.keys(actions).join(", ")}.`,
        );
      }
      return run(rest, context);
    },
  };
}

/** Parses one action's command line (with --database and --json) and prints its usage on --help. */
export function parseAction(
  argv: string[],
  specs: OptionSpecs,
  context: CommandContext,
  usage: string,
  positionals: { min: number; max: number },
): ParsedCommandLine | undefined {
  const parsed = parseCommandLine(
    argv,
    { ...databaseOption, json: { type: "boolean" }, ...specs },
    context.env,
  );
  if (parsed.values.help) {
    context.output.out(`${usage}\n`);
    return undefined;
  }
  const n = parsed.positionals.length;
  if (n < positionals.min || n > positionals.max) {
    throw badArgument(`${n < positionals.min ? "missing arguments" : "too many arguments"}; ${usage}`);
  }
  return parsed;
}

/**
 * Runs `work` against the database named by --database, closing it afterwards; `access` says
 * whether a database that does not exist is refused (actions that read or remove) or created.
 */
export async function withStore<T>(
  values: ParsedCommandLine["values"],
  access: DatabaseAccess,
  work: (store: Store) => Promise<T>,
): Promise<T> {
  const store = await openDatabase(databaseLocation(values), access);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** A positive whole-number id given on the command line. */
export function readIdArgument(text: string, what: string): number {
  const n = /^\d{1,15}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw badArgument(`The ${what} id must be a whole number of 1 or more; got ${JSON.stringify(text)}.`);
  return n;
}

/** `--category <name|id>`: an id that exists, or a name compared case-insensitively. */
export async function findCategory(store: Store, text: string): Promise<CategoryRecord> {
  if (/^\d+$/.test(text.trim())) {
    const byId = await store.categoryById(readIdArgument(text, "category"));
    if (!byId) throw new FeedServiceError("FEED_NOT_FOUND", `No category has id ${text.trim()}.`);
    return byId;
  }
  const wanted = text.trim().toLowerCase();
  const byName = (await store.categories()).find((c) => c.categoryName.toLowerCase() === wanted);
  if (!byName) {
    throw new FeedServiceError(
      "FEED_NOT_FOUND",
      `No category is named ${JSON.stringify(text)}; add it first with: feed-service categories add ${JSON.stringify(text)}`,
    );
  }
  return byName;
}

const languageTag = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

/**
 * `--language <code|id>`: an id that exists, or a BCP 47 tag, filed by language (created when new,
 * as an audited change by `actor`).
 */
export async function findLanguage(store: Store, text: string, actor: string): Promise<LanguageRecord> {
  const t = text.trim();
  if (/^\d+$/.test(t)) {
    const byId = await store.languageById(readIdArgument(t, "language"));
    if (!byId) throw new FeedServiceError("FEED_NOT_FOUND", `No language has id ${t}.`);
    return byId;
  }
  const tag = readLanguageTag(t);
  const filed = filingTag(canonicalLanguageTag(tag)).toLowerCase();
  const known = (await store.languages()).find((l) => l.languageCode.toLowerCase() === filed);
  return known ?? store.admin.addLanguage(actor, tag, undefined, Date.now());
}

/** A BCP 47 tag as typed on the command line (`en`, `pt-BR`, `und`). */
export function readLanguageTag(text: string): string {
  const t = text.trim();
  if (!languageTag.test(t)) {
    throw badArgument(
      `The language must be an id or a BCP 47 tag such as en, pt-BR or und; got ${JSON.stringify(text)}.`,
    );
  }
  return t;
}

/** Who the audit log names for a change made from the command line: `cli:<os user>`. */
export function cliActor(env: Env): string {
  let name: string | undefined;
  try {
    name = userInfo().username;
  } catch {
    // No passwd entry for the uid (some containers): the environment is all there is.
    name = env.USER ?? env.LOGNAME;
  }
  return `cli:${name || "unknown"}`;
}
