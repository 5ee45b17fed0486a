/** `feed-service audit`: the audit log of every administrator's change, newest first (as /admin/audit). */
import { visibleText } from "../admin/visible-text.js";
import { parseAction, withStore } from "./admin-actions.js";
import type { Command } from "./command.js";
import { readIntegerOption } from "./command-line.js";
import { isoOrNull, printRecords } from "./output.js";

const usage = `usage: feed-service audit [--limit 50] [--database <location>] [--json]

Prints the audit log, newest first: when (UTC), who (admin:<name>, cli:<os user>, visitor),
what (feed.add, category.remove, user.passwd, suggestion.approve, …), the row and the details.`;

const columns = ["auditId", "at", "actor", "action", "subject", "details"];

export const auditCommand: Command = {
  name: "audit",
  summary: "print the audit log of administrators' changes, newest first",
  usage,
  async run(argv, context) {
    const parsed = parseAction(argv, { limit: { type: "string" } }, context, usage, { min: 0, max: 0 });
    if (!parsed) return 0;
    const limit = readIntegerOption(parsed.values, "limit", 50, 1, 10_000);
    const rows = await withStore(parsed.values, { mode: "read" }, (store) => store.admin.auditLog({ limit }));
    // Details hold feed and visitor text; a terminal must not receive its control characters.
    const views = rows.map((r) => ({
      ...r,
      at: isoOrNull(r.at),
      actor: visibleText(r.actor),
      subject: r.subject === null ? null : visibleText(r.subject),
      details: visibleText(r.details, 2000),
    }));
    printRecords(context.output, views, columns, parsed.values.json === true);
    return 0;
  },
};
