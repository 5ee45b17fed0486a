/**
 * `/admin/users` and `/admin/audit` (spec §5.5): administrators added, removed and given a new
 * password from the browser, as `feed-service users` does; and the audit log of every change,
 * newest first. A new password ends every session of that user (the current one too, when it is
 * one's own); an administrator cannot remove themself here, so a site is never left without one
 * by a slip (the CLI can).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { checkPassword, hashPassword } from "../../admin/passwords.js";
import { badArgument, FeedServiceError } from "../../errors.js";
import type { UserRecord } from "../../store/admin-store.js";
import { timeElement, utcText } from "../display-format.js";
import { html } from "../html.js";
import type { AdminSession } from "./admin-guard.js";
import { field, redirect } from "./admin-http.js";
import { type AdminKit, doneNotice, fieldErrorsOf, hidden, routeId } from "./admin-kit.js";
import { csrfInput, type FieldErrors, formError, formField, shown } from "./admin-layout.js";

const notices = {
  added: "Added.",
  password: "The password was changed; every session of that administrator ended.",
  removed: "Removed; their sessions ended.",
};

export function userAdminRoutes(kit: AdminKit): void {
  const { app, store, guard, now } = kit;

  async function list(
    request: FastifyRequest,
    reply: FastifyReply,
    session: AdminSession,
    state: {
      status?: number;
      values?: Record<string, string>;
      errors?: FieldErrors;
      rowErrors?: Record<number, string>;
    } = {},
  ) {
    const users = await store.admin.users();
    const sessions = await Promise.all(users.map((u) => store.admin.sessionCount(u.userId)));
    const token = csrfInput(session);
    const errors = state.errors ?? {};
    const at = now();
    const main = html`<h2>Add an administrator</h2>
<form class="form" method="post" action="/admin/users">${token}${formError(errors)}
${formField({ name: "name", label: "Name", value: state.values?.name ?? "", required: true, maxlength: 64, autocomplete: "off", hint: "Letters, digits, '.', '_', '@' or '-'" }, errors)}
${formField({ name: "password", label: "Password", type: "password", required: true, autocomplete: "new-password", hint: "12 characters or more" }, errors)}
${formField({ name: "again", label: "The same password again", type: "password", required: true, autocomplete: "new-password" }, errors)}
<div><button type="submit">Add</button></div></form>
<h2>Administrators</h2>
<div class="table-scroll admin-scroll" role="region" aria-label="Administrators" tabindex="0"><table class="admin-table"><thead><tr><th scope="col">Name</th><th scope="col">Added</th><th scope="col">Password set</th><th scope="col" class="number">Sessions</th><th scope="col">New password</th><th scope="col">Remove</th></tr></thead>
<tbody>${users.map((u, i) => {
      const id = `pw-${u.userId}`;
      const error = state.rowErrors?.[u.userId];
      return html`<tr><td>${shown(u.userName)}</td><td>${timeElement(u.createdAt, at)}</td><td>${timeElement(u.changedAt, at)}</td><td class="number">${String(sessions[i] ?? 0)}</td>
<td><form method="post" action="/admin/users/${String(u.userId)}/password" class="inline-form">${token}<label for="${id}" class="visually-hidden">New password for ${u.userName}</label><input id="${id}" type="password" name="password" autocomplete="new-password" required${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ""}><button type="submit" class="quiet">Set</button>${error ? html`<span class="field-error" id="${id}-error">${error}</span>` : ""}</form></td>
<td>${u.userId === session.userId ? "(you)" : html`<a href="/admin/users/${String(u.userId)}/remove">Remove…</a>`}</td></tr>`;
    })}</tbody></table></div>`;
    kit.send(request, reply, session, {
      title: "Administrators",
      section: "users",
      status: state.status,
      notice: doneNotice(request, notices),
      main,
    });
  }

  async function user(id: number): Promise<UserRecord> {
    const found = (await store.admin.users()).find((u) => u.userId === id);
    if (!found) throw new FeedServiceError("FEED_NOT_FOUND", `No administrator has id ${id}.`);
    return found;
  }

  app.get(
    "/admin/users",
    hidden,
    guard.page((request, reply, session) => list(request, reply, session)),
  );

  app.post(
    "/admin/users",
    hidden,
    guard.action(async (request, reply, session, { fields }) => {
      const name = field(fields, "name");
      const password = field(fields, "password");
      try {
        if (password !== field(fields, "again")) throw badArgument("The two passwords differ.");
        checkPassword(password);
      } catch (error) {
        return list(request, reply, session, {
          status: 400,
          values: { name },
          errors: fieldErrorsOf(error, "password"),
        });
      }
      try {
        await store.admin.addUser(session.actor, name, await hashPassword(password), now());
      } catch (error) {
        return list(request, reply, session, {
          status: 400,
          values: { name },
          errors: fieldErrorsOf(error, "name"),
        });
      }
      redirect(reply, "/admin/users?done=added");
    }),
  );

  app.post(
    "/admin/users/:id/password",
    hidden,
    guard.action(async (request, reply, session, { fields }) => {
      const target = await user(routeId(request, "administrator"));
      const password = field(fields, "password");
      try {
        checkPassword(password);
      } catch (error) {
        const message = fieldErrorsOf(error, "password").password!;
        return list(request, reply, session, { status: 400, rowErrors: { [target.userId]: message } });
      }
      await store.admin.setPassword(session.actor, target.userName, await hashPassword(password), now());
      // One's own new password ended one's own session too: sign in again with it.
      redirect(reply, target.userId === session.userId ? "/admin/sign-in" : "/admin/users?done=password");
    }),
  );

  app.get(
    "/admin/users/:id/remove",
    hidden,
    guard.page(async (request, reply, session) => {
      const target = await user(routeId(request, "administrator"));
      const self = target.userId === session.userId;
      const main = self
        ? html`<p>You cannot remove yourself here; another administrator can, or <code>feed-service users remove</code>.</p>`
        : html`<p>Removing ${shown(target.userName)} ends their ${String(await store.admin.sessionCount(target.userId))} sessions; they can no longer sign in.</p>
<form method="post" action="/admin/users/${String(target.userId)}/remove" class="inline-form">${csrfInput(session)}<button type="submit" class="danger">Remove</button> <a href="/admin/users">Keep</a></form>`;
      kit.send(request, reply, session, { title: "Remove an administrator?", section: "users", main });
    }),
  );

  app.post(
    "/admin/users/:id/remove",
    hidden,
    guard.action(async (request, reply, session) => {
      const target = await user(routeId(request, "administrator"));
      if (target.userId === session.userId) {
        throw new FeedServiceError("FEED_BAD_ARGUMENT", "You cannot remove yourself here.");
      }
      await store.admin.removeUser(session.actor, target.userName, now());
      redirect(reply, "/admin/users?done=removed");
    }),
  );

  const pageSize = 50;
  app.get(
    "/admin/audit",
    hidden,
    guard.page(async (request, reply, session) => {
      const beforeText = (request.query as Record<string, unknown>).before;
      const before =
        typeof beforeText === "string" && /^\d{1,15}$/.test(beforeText) ? Number(beforeText) : undefined;
      const rows = await store.admin.auditLog({ limit: pageSize, before });
      const last = rows[rows.length - 1];
      const main = html`${
        rows.length === 0
          ? html`<p>Nothing recorded${before === undefined ? " yet" : " before this"}.</p>`
          : html`<div class="table-scroll admin-scroll" role="region" aria-label="Audit log" tabindex="0"><table class="admin-table"><thead><tr><th scope="col">When (UTC)</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Row</th><th scope="col">Details</th></tr></thead>
<tbody>${rows.map(
              (r) =>
                html`<tr><td>${utcText(r.at)}</td><td>${shown(r.actor)}</td><td>${r.action}</td><td>${shown(r.subject)}</td><td>${shown(r.details, 600)}</td></tr>`,
            )}</tbody></table></div>`
      }
${rows.length === pageSize && last ? html`<p class="pager"><a href="/admin/audit?before=${String(last.auditId)}">Older</a></p>` : ""}`;
      kit.send(request, reply, session, { title: "Audit log", section: "audit", main });
    }),
  );
}
