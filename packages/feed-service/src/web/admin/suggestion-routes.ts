/**
 * Suggestions (spec §5.5): the public `/suggest` form, where a visitor gives a site or feed
 * address, a category and a note; and `/admin/suggestions`, where an administrator approves (the
 * feed is added and fetched at once) or rejects them, one by one or several at once. A visitor's
 * address is checked before anything is kept: http(s), public addresses only, a size cap, a feed
 * or a page naming one. A honeypot field and 10 suggestions a day per client address keep scripts
 * from filling the queue.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { checkFeedAddress } from "../../admin/feed-check.js";
import { badArgument, FeedServiceError } from "../../errors.js";
import { noteText } from "../../store/admin-fields.js";
import type { SuggestionRecord } from "../../store/admin-store.js";
import { timeElement } from "../display-format.js";
import { type Html, html } from "../html.js";
import { pageDocument } from "../page-layout.js";
import { clientHasher, field, readForm, redirect, sameOrigin, sendPage } from "./admin-http.js";
import { type AdminKit, categorySelect, doneNotice, hidden } from "./admin-kit.js";
import { csrfInput, type FieldErrors, formError, formField, shown } from "./admin-layout.js";

/** Suggestions one client address may make in a day. */
export const suggestionsPerDay = 10;
const day = 86_400_000;

export function suggestionRoutes(kit: AdminKit): void {
  const { app, store, guard, now } = kit;
  const hashClient = clientHasher(store);

  async function suggestForm(
    request: FastifyRequest,
    reply: FastifyReply,
    state: { status: number; values?: Record<string, string>; errors?: FieldErrors; thanks?: boolean },
  ): Promise<void> {
    const values = state.values ?? {};
    const errors = state.errors ?? {};
    const categories = await store.categories();
    const selected = values.category ? Number(values.category) : null;
    const main = html`<h1>Suggest a feed</h1>
${state.thanks ? html`<p class="notice" role="status">Thank you: your suggestion waits for an editor.</p>` : ""}
<p>Know a blog or news site that belongs here? Give its address: a web page is enough, its feed is found for you. An editor looks at every suggestion before it is added.</p>
<form class="form" method="post" action="/suggest">
${formError(errors)}
${formField({ name: "url", label: "Site or feed address", type: "url", value: values.url ?? "", required: true, maxlength: 2048, hint: "Starting with https:// or http://" }, errors)}
<div class="field"><label for="f-category">Category (optional)</label>${categorySelect("f-category", "category", categories, selected)}</div>
<div class="field"><label for="f-note">Note for the editors (optional)</label>
<textarea id="f-note" name="note" maxlength="1000"${errors.note ? html` aria-invalid="true" aria-describedby="f-note-error"` : ""}>${values.note ?? ""}</textarea>
${errors.note ? html`<p class="field-error" id="f-note-error">${errors.note}</p>` : ""}</div>
<div class="honeypot" aria-hidden="true"><label for="f-website">Leave this empty</label><input id="f-website" name="website" type="text" tabindex="-1" autocomplete="off"></div>
<div><button type="submit">Suggest</button></div>
</form>`;
    sendPage(
      reply,
      state.status,
      pageDocument({ title: "Suggest a feed", section: "none", main }, kit.context(request)),
    );
  }

  app.get("/suggest", hidden, async (request, reply) => suggestForm(request, reply, { status: 200 }));

  app.post("/suggest", hidden, async (request, reply) => {
    if (!sameOrigin(request, kit.context(request).baseUrl)) {
      return guard.forbidden(request, reply, "This form was sent from another site, so nothing was kept.");
    }
    const { fields } = readForm(request);
    const values = {
      url: field(fields, "url"),
      category: field(fields, "category"),
      note: field(fields, "note"),
    };
    // A field no person sees was filled in: a script. It is thanked like anyone and nothing is kept.
    if (field(fields, "website") !== "") return suggestForm(request, reply, { status: 200, thanks: true });
    const clientHash = await hashClient(request);
    if ((await store.admin.suggestionsFrom(clientHash, now() - day)) >= suggestionsPerDay) {
      reply.header("Retry-After", String(day / 1000));
      return suggestForm(request, reply, {
        status: 429,
        values,
        errors: {
          "": `At most ${suggestionsPerDay} suggestions a day can come from one address. Thank you, and please come back tomorrow.`,
        },
      });
    }
    let note: string;
    let categoryId: number | null = null;
    try {
      note = noteText(values.note);
    } catch (error) {
      return suggestForm(request, reply, { status: 400, values, errors: { note: (error as Error).message } });
    }
    if (values.category !== "") {
      const category = /^\d{1,9}$/.test(values.category)
        ? await store.categoryById(Number(values.category))
        : undefined;
      if (!category) {
        return suggestForm(request, reply, {
          status: 400,
          values,
          errors: { "": "Choose a category from the list, or none." },
        });
      }
      categoryId = category.categoryId;
    }
    let found: Awaited<ReturnType<typeof checkFeedAddress>>;
    try {
      found = await checkFeedAddress(values.url, { dispatcher: kit.agent() });
      const known = (await store.adminFeeds()).find((f) => f.feedUrl === found.feedUrl);
      if (known) throw badArgument("This feed is already on the site.");
      const waiting = (await store.admin.suggestions("waiting")).find((s) => s.feedUrl === found.feedUrl);
      if (waiting) throw badArgument("This feed has been suggested already and waits for an editor.");
    } catch (error) {
      if (!(error instanceof FeedServiceError) || error.code !== "FEED_BAD_ARGUMENT") throw error;
      return suggestForm(request, reply, { status: 400, values, errors: { url: error.message } });
    }
    await store.admin.addSuggestion(
      { url: found.url, feedUrl: found.feedUrl, feedTitle: found.title, categoryId, note, clientHash },
      now(),
    );
    return suggestForm(request, reply, { status: 200, thanks: true });
  });

  // --- moderation ---
  const notices = {
    approved: "Approved: the feed was added and fetched.",
    rejected: "Rejected.",
    none: "Choose at least one suggestion first.",
  };

  function row(s: SuggestionRecord, categories: Map<number, string>, at: number, token: Html): Html {
    return html`<tr>
<td><input type="checkbox" name="id" value="${String(s.suggestionId)}" id="s-${String(s.suggestionId)}" form="bulk"><label for="s-${String(s.suggestionId)}" class="visually-hidden">Select suggestion ${String(s.suggestionId)}</label></td>
<td>${shown(s.feedTitle ?? "(no title)")}<br><span class="meta">${shown(s.feedUrl, 500)}</span>${s.url !== s.feedUrl ? html`<br><span class="meta">found from ${shown(s.url, 500)}</span>` : ""}</td>
<td>${s.categoryId === null ? "" : shown(categories.get(s.categoryId) ?? "")}</td>
<td>${shown(s.note, 1000)}</td>
<td>${timeElement(s.createdAt, at)}</td>
<td><form method="post" action="/admin/suggestions" class="inline-form">${token}<input type="hidden" name="id" value="${String(s.suggestionId)}"><button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="reject" class="danger">Reject</button></form></td>
</tr>`;
  }

  app.get(
    "/admin/suggestions",
    hidden,
    guard.page(async (request, reply, session) => {
      const [waiting, categories, all] = await Promise.all([
        store.admin.suggestions("waiting"),
        store.categories(),
        store.admin.suggestions(),
      ]);
      const names = new Map(categories.map((c) => [c.categoryId, c.categoryName]));
      const token = csrfInput(session);
      const decided = all.filter((s) => s.state !== "waiting").slice(0, 20);
      const main = html`${
        waiting.length === 0
          ? html`<p>No suggestion waits.</p>`
          : html`<form id="bulk" method="post" action="/admin/suggestions" class="inline-form">${token}<span>With the selected:</span><button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="reject" class="danger">Reject</button></form>
<div class="table-scroll admin-scroll" role="region" aria-label="Waiting suggestions" tabindex="0"><table class="admin-table"><caption>${String(waiting.length)} waiting</caption>
<thead><tr><th scope="col"><span class="visually-hidden">Select</span></th><th scope="col">Feed</th><th scope="col">Category</th><th scope="col">Note</th><th scope="col">Suggested</th><th scope="col">Decision</th></tr></thead>
<tbody>${waiting.map((s) => row(s, names, now(), token))}</tbody></table></div>`
      }
${
  decided.length > 0
    ? html`<h2>Decided lately</h2><div class="table-scroll admin-scroll" role="region" aria-label="Decided suggestions" tabindex="0"><table class="admin-table"><thead><tr><th scope="col">Feed</th><th scope="col">Decision</th><th scope="col">By</th><th scope="col">When</th></tr></thead>
<tbody>${decided.map((s) => html`<tr><td>${shown(s.feedUrl, 500)}</td><td>${s.state}${s.feedId !== null ? html` (<a href="/admin/feeds/${String(s.feedId)}">feed</a>)` : ""}</td><td>${shown(s.decidedBy)}</td><td>${s.decidedAt === null ? "" : timeElement(s.decidedAt, now())}</td></tr>`)}</tbody></table></div>`
    : ""
}`;
      kit.send(request, reply, session, {
        title: "Suggestions",
        section: "suggestions",
        notice: doneNotice(request, notices),
        main,
      });
    }),
  );

  app.post(
    "/admin/suggestions",
    hidden,
    guard.action(async (_request, reply, session, { fields }) => {
      const decision = field(fields, "decision");
      const ids = (fields.get("id") ?? []).filter((t) => /^\d{1,15}$/.test(t)).map(Number);
      if (decision !== "approve" && decision !== "reject") return redirect(reply, "/admin/suggestions");
      if (ids.length === 0) return redirect(reply, "/admin/suggestions?done=none");
      for (const id of ids) {
        const s = await store.admin.suggestionById(id);
        if (s?.state !== "waiting") continue;
        if (decision === "reject") {
          await store.admin.rejectSuggestion(session.actor, id, now());
          continue;
        }
        const newFeed = {
          feedUrl: s.feedUrl,
          feedName: (s.feedTitle || new URL(s.feedUrl).hostname).slice(0, 500),
          categoryId: s.categoryId,
        };
        try {
          const feed = await store.admin.approveSuggestion(session.actor, id, newFeed, now());
          // Fetched at once under the visitors' fetch rules: the address came from a visitor.
          await kit.fetchNow(feed, kit.agent());
        } catch (error) {
          // Subscribed meanwhile (another approval, the CLI): the suggestion stays for a reject.
          if (!(error instanceof FeedServiceError) || error.code !== "FEED_CONFLICT") throw error;
        }
      }
      redirect(reply, `/admin/suggestions?done=${decision === "approve" ? "approved" : "rejected"}`);
    }),
  );
}
