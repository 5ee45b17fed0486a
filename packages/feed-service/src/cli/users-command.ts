/**
 * `feed-service users add|list|remove|passwd`: the administrators who may sign in at /admin
 * (spec §5.5). Passwords come from a prompt that does not echo, or from standard input with
 * --password-stdin (for scripts); they are never printed, logged or passed on the command line.
 */
import { badArgument, FeedServiceError } from "../errors.js";
import { cliActor, commandGroup, parseAction, withStore } from "./admin-actions.js";
import type { CommandContext } from "./command.js";
import { isoOrNull, printRecords } from "./output.js";
import { readPassword } from "./password-input.js";

const usage = `usage: feed-service users <action> [--database <location>] [--json]

actions:
  list                               every administrator, by name
  add <name> [--password-stdin]      add an administrator; the password (12 characters or
                                     more) is asked for twice without echo, or read from
                                     the first line of standard input
  passwd <name> [--password-stdin]   set a new password; every session of the user ends
  remove <name>                      remove an administrator; their sessions end

Names are 1 to 64 letters, digits, '.', '_', '@' or '-'. Every change is written to the
audit log as made by cli:<your login name>.`;

const columns = ["userId", "userName", "createdAt", "changedAt"];

async function newPassword(values: Record<string, unknown>, context: CommandContext): Promise<string> {
  // Loaded here: hashing pulls in nothing big, but listing should not wait for a prompt's setup.
  const { checkPassword } = await import("../admin/passwords.js");
  return checkPassword(await readPassword(values["password-stdin"] === true, context.output));
}

export const usersCommand = commandGroup(
  "users",
  "add, list, remove administrators and set their passwords",
  usage,
  {
    async list(argv, context) {
      const parsed = parseAction(argv, {}, context, usage, { min: 0, max: 0 });
      if (!parsed) return 0;
      const rows = await withStore(parsed.values, { mode: "read" }, (store) => store.admin.users());
      const json = parsed.values.json === true;
      const views = rows.map((u) => ({
        ...u,
        createdAt: isoOrNull(u.createdAt),
        changedAt: isoOrNull(u.changedAt),
      }));
      printRecords(context.output, views, columns, json);
      return 0;
    },
    async add(argv, context) {
      const parsed = parseAction(argv, { "password-stdin": { type: "boolean" } }, context, usage, {
        min: 1,
        max: 1,
      });
      if (!parsed) return 0;
      const { userNameText } = await import("../store/admin-fields.js");
      const name = userNameText(parsed.positionals[0]);
      const password = await newPassword(parsed.values, context);
      const { hashPassword } = await import("../admin/passwords.js");
      const hash = await hashPassword(password);
      const user = await withStore(parsed.values, { mode: "create", output: context.output }, (store) =>
        store.admin.addUser(cliActor(context.env), name, hash, Date.now()),
      );
      const view = { ...user, createdAt: isoOrNull(user.createdAt), changedAt: isoOrNull(user.changedAt) };
      context.output.out(
        parsed.values.json ? `${JSON.stringify(view, null, 2)}\n` : `added user ${user.userName}\n`,
      );
      return 0;
    },
    async passwd(argv, context) {
      const parsed = parseAction(argv, { "password-stdin": { type: "boolean" } }, context, usage, {
        min: 1,
        max: 1,
      });
      if (!parsed) return 0;
      const name = parsed.positionals[0].trim();
      // The user is looked for before the prompt: no one types a password for a name that is not there.
      const known = await withStore(parsed.values, { mode: "read" }, (store) =>
        store.admin.userCredentials(name),
      );
      if (!known) throw new FeedServiceError("FEED_NOT_FOUND", `No user is named ${JSON.stringify(name)}.`);
      const password = await newPassword(parsed.values, context);
      const { hashPassword } = await import("../admin/passwords.js");
      const hash = await hashPassword(password);
      const changed = await withStore(parsed.values, { mode: "read" }, (store) =>
        store.admin.setPassword(cliActor(context.env), name, hash, Date.now()),
      );
      if (!changed) throw new FeedServiceError("FEED_NOT_FOUND", `No user is named ${JSON.stringify(name)}.`);
      context.output.out(
        parsed.values.json
          ? `${JSON.stringify({ changed: known.userName })}\n`
          : `password changed for ${known.userName}; their sessions ended\n`,
      );
      return 0;
    },
    async remove(argv, context) {
      const parsed = parseAction(argv, {}, context, usage, { min: 1, max: 1 });
      if (!parsed) return 0;
      const name = parsed.positionals[0].trim();
      if (name === "") throw badArgument("users remove needs a user name.");
      const removed = await withStore(parsed.values, { mode: "read" }, (store) =>
        store.admin.removeUser(cliActor(context.env), name, Date.now()),
      );
      if (!removed) throw new FeedServiceError("FEED_NOT_FOUND", `No user is named ${JSON.stringify(name)}.`);
      context.output.out(
        parsed.values.json ? `${JSON.stringify({ removed: name })}\n` : `removed user ${name}\n`,
      );
      return 0;
    },
  },
);
