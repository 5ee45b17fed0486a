/**
 * `/admin/categories`, `/admin/smart-categories` and `/admin/languages` (spec §5.5): add, rename,
 * remove. Removal first shows what it would change (the feeds and posts that use the row) on a
 * page of its own, and only its POST removes. The three share one shape, described per kind.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { FeedServiceError } from "../../errors.js";
import type { Actor } from "../../store/admin-store.js";
import type { Store } from "../../store/store.js";
import { type Html, html } from "../html.js";
import type { AdminSession } from "./admin-guard.js";
import { type FormFields, field, redirect } from "./admin-http.js";
import { type AdminKit, doneNotice, fieldErrorsOf, hidden, routeId } from "./admin-kit.js";
import { csrfInput, type FieldErrors, formError, formField, shown, visibleText } from "./admin-layout.js";

interface Row {
  id: number;
  name: string;
  /** A second column: the code, the query, the feed count. */
  detail: string;
}

interface CatalogKind {
  readonly path: "categories" | "smart-categories" | "languages";
  readonly title: string;
  readonly one: string;
  rows(store: Store): Promise<Row[]>;
  detailHeading: string;
  /** What removing the row would change, in a sentence. */
  effect(store: Store, id: number): Promise<string>;
  addFields(values: Record<string, string>, errors: FieldErrors): Html;
  add(store: Store, actor: Actor, fields: FormFields, now: number): Promise<unknown>;
  /** The field an add error goes beside. */
  addErrorField: string;
  rename(store: Store, actor: Actor, id: number, name: string, now: number): Promise<unknown>;
  remove(store: Store, actor: Actor, id: number, now: number): Promise<boolean>;
}

const kinds: readonly CatalogKind[] = [
  {
    path: "categories",
    title: "Categories",
    one: "category",
    detailHeading: "Feeds",
    rows: async (store) =>
      (await store.categories()).map((c) => ({
        id: c.categoryId,
        name: c.categoryName,
        detail: String(c.feedCount),
      })),
    async effect(store, id) {
      const u = await store.admin.categoryUsage(id);
      return `${u.feeds} feeds and ${u.posts} posts lose this category (they stay, without a category).`;
    },
    addFields: (values, errors) =>
      formField(
        { name: "name", label: "Name", value: values.name ?? "", required: true, maxlength: 200 },
        errors,
      ),
    add: (store, actor, fields, now) => store.admin.addCategory(actor, field(fields, "name"), now),
    addErrorField: "name",
    rename: (store, actor, id, name, now) => store.admin.renameCategory(actor, id, name, now),
    remove: (store, actor, id, now) => store.admin.removeCategory(actor, id, now),
  },
  {
    path: "smart-categories",
    title: "Smart categories",
    one: "smart category",
    detailHeading: "Search",
    rows: async (store) =>
      (await store.smartCategories()).map((s) => ({
        id: s.smartCategoryId,
        name: s.smartCategoryName,
        detail: s.smartCategoryQuery,
      })),
    effect: async () => "The saved search and its output feeds go; no post or feed changes.",
    addFields: (values, errors) =>
      html`${formField({ name: "name", label: "Name", value: values.name ?? "", required: true, maxlength: 200 }, errors)}
${formField({ name: "query", label: "Search", value: values.query ?? "", required: true, maxlength: 256, hint: "As in the search box, e.g. flex OR air -jobs" }, errors)}`,
    add: (store, actor, fields, now) =>
      store.admin.addSmartCategory(
        actor,
        { name: field(fields, "name"), query: field(fields, "query") },
        now,
      ),
    addErrorField: "query",
    rename: (store, actor, id, name, now) => store.admin.renameSmartCategory(actor, id, name, now),
    remove: (store, actor, id, now) => store.admin.removeSmartCategory(actor, id, now),
  },
  {
    path: "languages",
    title: "Languages",
    one: "language",
    detailHeading: "Code",
    rows: async (store) =>
      (await store.languages()).map((l) => ({
        id: l.languageId,
        name: l.languageName,
        detail: l.languageCode,
      })),
    async effect(store, id) {
      const u = await store.admin.languageUsage(id);
      if (id <= 2) return "This language is built in and cannot be removed.";
      return u.feeds + u.posts === 0
        ? "No feed or post uses this language: nothing else changes."
        : `${u.feeds} feeds and ${u.posts} posts use this language, so it cannot be removed until they are filed under another.`;
    },
    addFields: (values, errors) =>
      html`${formField({ name: "code", label: "BCP 47 tag", value: values.code ?? "", required: true, maxlength: 35, hint: "Such as fr, pt-BR or zh-Hant" }, errors)}
${formField({ name: "name", label: "Name (optional)", value: values.name ?? "", maxlength: 100 }, errors)}`,
    add: (store, actor, fields, now) =>
      store.admin.addLanguage(actor, field(fields, "code"), field(fields, "name").trim() || undefined, now),
    addErrorField: "code",
    rename: (store, actor, id, name, now) => store.admin.renameLanguage(actor, id, name, now),
    remove: (store, actor, id, now) => store.admin.removeLanguage(actor, id, now),
  },
];

export function catalogAdminRoutes(kit: AdminKit): void {
  for (const kind of kinds) catalogRoutes(kit, kind);
}

function catalogRoutes(kit: AdminKit, kind: CatalogKind): void {
  const { app, store, guard, now } = kit;
  const base = `/admin/${kind.path}`;
  const notices = { added: "Added.", renamed: "Renamed.", removed: "Removed." };

  async function list(
    request: FastifyRequest,
    reply: FastifyReply,
    session: AdminSession,
    state: {
      status?: number;
      values?: Record<string, string>;
      errors?: FieldErrors;
      renameErrors?: Record<number, string>;
    } = {},
  ) {
    const rows = await kind.rows(store);
    const token = csrfInput(session);
    const errors = state.errors ?? {};
    const main = html`<h2>Add a ${kind.one}</h2>
<form class="form" method="post" action="${base}">${token}${formError(errors)}${kind.addFields(state.values ?? {}, errors)}<div><button type="submit">Add</button></div></form>
<h2>Every ${kind.one}</h2>
${
  rows.length === 0
    ? html`<p>None yet.</p>`
    : html`<div class="table-scroll admin-scroll" role="region" aria-label="${kind.title}" tabindex="0"><table class="admin-table"><thead><tr><th scope="col">Name</th><th scope="col">${kind.detailHeading}</th><th scope="col">Rename</th><th scope="col">Remove</th></tr></thead>
<tbody>${rows.map((r) => {
        const error = state.renameErrors?.[r.id];
        const id = `rename-${r.id}`;
        return html`<tr><td>${shown(r.name)}</td><td>${shown(r.detail)}</td>
<td><form method="post" action="${base}/${String(r.id)}/rename" class="inline-form">${token}<label for="${id}" class="visually-hidden">New name for ${visibleText(r.name, 100)}</label><input id="${id}" type="text" name="name" value="${r.name}" maxlength="200" required${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ""}><button type="submit" class="quiet">Rename</button>${error ? html`<span class="field-error" id="${id}-error">${error}</span>` : ""}</form></td>
<td><a href="${base}/${String(r.id)}/remove">Remove…</a></td></tr>`;
      })}</tbody></table></div>`
}`;
    kit.send(request, reply, session, {
      title: kind.title,
      section: kind.path,
      status: state.status,
      notice: doneNotice(request, notices),
      main,
    });
  }

  app.get(
    base,
    hidden,
    guard.page((request, reply, session) => list(request, reply, session)),
  );

  app.post(
    base,
    hidden,
    guard.action(async (request, reply, session, { fields }) => {
      try {
        await kind.add(store, session.actor, fields, now());
      } catch (error) {
        const values = Object.fromEntries([...fields].map(([k, v]) => [k, v[0] ?? ""]));
        return list(request, reply, session, {
          status: 400,
          values,
          errors: fieldErrorsOf(error, kind.addErrorField),
        });
      }
      redirect(reply, `${base}?done=added`);
    }),
  );

  app.post(
    `${base}/:id/rename`,
    hidden,
    guard.action(async (request, reply, session, { fields }) => {
      const id = routeId(request, kind.one);
      try {
        await kind.rename(store, session.actor, id, field(fields, "name"), now());
      } catch (error) {
        const message = fieldErrorsOf(error, "name").name!;
        return list(request, reply, session, { status: 400, renameErrors: { [id]: message } });
      }
      redirect(reply, `${base}?done=renamed`);
    }),
  );

  async function named(id: number): Promise<Row> {
    const row = (await kind.rows(store)).find((r) => r.id === id);
    if (!row) throw new FeedServiceError("FEED_NOT_FOUND", `No ${kind.one} has id ${id}.`);
    return row;
  }

  async function confirm(
    request: FastifyRequest,
    reply: FastifyReply,
    session: AdminSession,
    error?: string,
  ): Promise<void> {
    const id = routeId(request, kind.one);
    const row = await named(id);
    const main = html`<p>Removing the ${kind.one} ${shown(row.name)}: ${await kind.effect(store, id)}</p>
${error ? html`<p class="field-error" role="alert">${error}</p>` : ""}
<form method="post" action="${base}/${String(id)}/remove" class="inline-form">${csrfInput(session)}<button type="submit" class="danger">Remove</button> <a href="${base}">Keep it</a></form>`;
    kit.send(request, reply, session, {
      title: `Remove a ${kind.one}?`,
      section: kind.path,
      status: error ? 409 : 200,
      main,
    });
  }

  // A GET only tells what the removal would change; the POST below removes.
  app.get(
    `${base}/:id/remove`,
    hidden,
    guard.page((request, reply, session) => confirm(request, reply, session)),
  );

  app.post(
    `${base}/:id/remove`,
    hidden,
    guard.action(async (request, reply, session) => {
      const id = routeId(request, kind.one);
      try {
        if (!(await kind.remove(store, session.actor, id, now()))) {
          throw new FeedServiceError("FEED_NOT_FOUND", `No ${kind.one} has id ${id}.`);
        }
      } catch (error) {
        if (error instanceof FeedServiceError && error.code === "FEED_CONFLICT") {
          return confirm(request, reply, session, error.message);
        }
        throw error;
      }
      redirect(reply, `${base}?done=removed`);
    }),
  );
}
