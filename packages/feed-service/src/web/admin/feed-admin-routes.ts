/**
 * `/admin/feeds` and `/admin/feeds/{id}` (spec §5.5): every feed with its health, adding one
 * (checked and discovered as a suggestion is), and one feed's page — health in full (last
 * success, last error with stage and code, failures in a row, next check, WebSub state), editing
 * its name, category and language, pausing, refreshing now and removing.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { checkFeedAddress } from "../../admin/feed-check.js";
import { webSubView } from "../../cli/websub-view.js";
import { FeedServiceError } from "../../errors.js";
import { pausedUntil } from "../../store/admin-fields.js";
import type { FeedAdminRecord } from "../../store/store.js";
import { timeElement, utcText } from "../display-format.js";
import { type Html, html } from "../html.js";
import type { AdminSession } from "./admin-guard.js";
import { field, redirect } from "./admin-http.js";
import { type AdminKit, categorySelect, doneNotice, fieldErrorsOf, hidden, routeId } from "./admin-kit.js";
import { csrfInput, type FieldErrors, formError, formField, shown, visibleText } from "./admin-layout.js";

const notices = {
  added: "The feed was added and fetched.",
  edited: "Saved.",
  paused: "Paused: the feed is not fetched until it is resumed.",
  resumed: "Resumed: the feed is fetched again.",
  refreshed: "Fetched just now; its health below says how it went.",
  removed: "The feed and its posts were removed.",
};

function health(f: FeedAdminRecord, paused: boolean, now: number): Html {
  if (paused) return html`paused`;
  if (f.errorCount > 0)
    return html`<strong>failing</strong> (${String(f.errorCount)} in a row, ${f.lastErrorCode ?? "?"})`;
  if (f.lastSuccessAt === null) return html`not fetched yet`;
  return html`ok, ${timeElement(f.lastSuccessAt, now)}`;
}

export function feedAdminRoutes(kit: AdminKit): void {
  const { app, store, guard, now } = kit;

  async function list(
    request: FastifyRequest,
    reply: FastifyReply,
    session: AdminSession,
    state: { status?: number; values?: Record<string, string>; errors?: FieldErrors } = {},
  ) {
    const [feeds, paused, categories] = await Promise.all([
      store.adminFeeds(),
      store.admin.pausedFeeds(),
      store.categories(),
    ]);
    const values = state.values ?? {};
    const errors = state.errors ?? {};
    const at = now();
    const main = html`<h2>Add a feed</h2>
<form class="form" method="post" action="/admin/feeds">${csrfInput(session)}
${formError(errors)}
${formField({ name: "url", label: "Site or feed address", type: "url", value: values.url ?? "", required: true, maxlength: 2048, hint: "A web page is enough: the feed it names is found." }, errors)}
${formField({ name: "name", label: "Name (optional)", value: values.name ?? "", maxlength: 500, hint: "Left empty, the feed's own title." }, errors)}
<div class="field"><label for="f-category">Category</label>${categorySelect("f-category", "category", categories, values.category ? Number(values.category) : null)}</div>
<div><button type="submit">Add and fetch</button></div>
</form>
<h2>Every feed</h2>
${
  feeds.length === 0
    ? html`<p>No feed yet.</p>`
    : html`<div class="table-scroll admin-scroll" role="region" aria-label="Every feed" tabindex="0"><table class="admin-table"><thead><tr><th scope="col">Feed</th><th scope="col">Health</th><th scope="col" class="number">Posts</th><th scope="col">Next check</th></tr></thead>
<tbody>${feeds.map(
        (
          f,
        ) => html`<tr><td><a href="/admin/feeds/${String(f.feedId)}">${shown(f.feedName)}</a><br><span class="meta">${shown(f.feedUrl, 200)}</span></td>
<td>${health(f, paused.has(f.feedId), at)}</td><td class="number">${String(f.postCount)}</td>
<td>${paused.has(f.feedId) ? "—" : f.nextFetchAt <= at ? "due now" : utcText(f.nextFetchAt)}</td></tr>`,
      )}</tbody></table></div>`
}`;
    kit.send(request, reply, session, {
      title: "Feeds",
      section: "feeds",
      status: state.status,
      notice: doneNotice(request, notices),
      main,
    });
  }

  app.get(
    "/admin/feeds",
    hidden,
    guard.page((request, reply, session) => list(request, reply, session)),
  );

  app.post(
    "/admin/feeds",
    hidden,
    guard.action(async (request, reply, session, { fields }) => {
      const values = {
        url: field(fields, "url"),
        name: field(fields, "name"),
        category: field(fields, "category"),
      };
      let feed: FeedAdminRecord;
      try {
        const categoryId = values.category === "" ? null : Number(values.category);
        const found = await checkFeedAddress(values.url, {
          dispatcher: kit.agent(),
          maxBytes: 10 * 1024 * 1024,
        });
        const name = values.name.trim() || found.title || new URL(found.feedUrl).hostname;
        feed = await store.admin.addFeed(
          session.actor,
          { feedUrl: found.feedUrl, feedName: name.slice(0, 500), siteUrl: found.siteUrl, categoryId },
          now(),
        );
      } catch (error) {
        const errors = fieldErrorsOf(error, "url");
        return list(request, reply, session, { status: 400, values, errors });
      }
      await kit.fetchNow(feed);
      redirect(reply, `/admin/feeds/${feed.feedId}?done=added`);
    }),
  );

  async function detail(
    request: FastifyRequest,
    reply: FastifyReply,
    session: AdminSession,
    state: { status?: number; errors?: FieldErrors } = {},
  ) {
    const id = routeId(request, "feed");
    const feed = await store.feedById(id);
    if (!feed) throw new FeedServiceError("FEED_NOT_FOUND", `No feed has id ${id}.`);
    const [paused, categories, languages, sub] = await Promise.all([
      store.admin.pausedFeeds(),
      store.categories(),
      store.languages(),
      store.websub.subscriptionByFeed(id),
    ]);
    const at = now();
    const isPaused = paused.has(id);
    const errors = state.errors ?? {};
    const token = csrfInput(session);
    const websub = sub ? webSubView(sub, at) : undefined;
    const main = html`<p><a href="/feeds/${String(id)}">Its public page</a> · <a href="/admin/feeds">Every feed</a></p>
<h2>Health</h2>
<dl class="facts">
<dt>Address</dt><dd>${shown(feed.feedUrl, 2048)}</dd>
<dt>State</dt><dd>${health(feed, isPaused, at)}</dd>
<dt>Last success</dt><dd>${feed.lastSuccessAt === null ? "never" : html`${timeElement(feed.lastSuccessAt, at)} (${utcText(feed.lastSuccessAt)})`}</dd>
<dt>Last error</dt><dd>${
      feed.lastErrorAt === null
        ? "none"
        : html`${feed.lastErrorCode ?? "?"} at the ${feed.lastErrorStage ?? "?"} stage, ${timeElement(feed.lastErrorAt, at)}: ${shown(feed.lastError, 1000)}`
    }</dd>
<dt>Failures in a row</dt><dd>${String(feed.errorCount)}</dd>
<dt>Next check</dt><dd>${isPaused || feed.nextFetchAt >= pausedUntil ? "none while paused" : feed.nextFetchAt <= at ? "due now" : utcText(feed.nextFetchAt)}</dd>
<dt>WebSub</dt><dd>${websub ? html`${websub.state} at ${shown(websub.hubUrl, 500)}${websub.leaseExpiresAt ? html`, lease until ${websub.leaseExpiresAt}` : ""}` : "no hub named"}</dd>
<dt>Posts</dt><dd>${String(feed.postCount)}</dd>
</dl>
<h2>Edit</h2>
<form class="form" method="post" action="/admin/feeds/${String(id)}/edit">${token}
${formError(errors)}
${formField({ name: "name", label: "Name", value: feed.feedName, required: true, maxlength: 500 }, errors)}
<div class="field"><label for="f-category">Category</label>${categorySelect("f-category", "category", categories, feed.categoryId)}</div>
<div class="field"><label for="f-language">Language</label><select id="f-language" name="language">${languages.map(
      (l) =>
        html`<option value="${String(l.languageId)}"${l.languageId === feed.languageId ? html` selected` : ""}>${visibleText(l.languageName, 100)} (${l.languageCode})</option>`,
    )}</select></div>
<div><button type="submit">Save</button></div>
</form>
<h2>Fetching</h2>
<form method="post" action="/admin/feeds/${String(id)}/refresh" class="inline-form">${token}<button type="submit">Refresh now</button></form>
<form method="post" action="/admin/feeds/${String(id)}/pause" class="inline-form">${token}<input type="hidden" name="paused" value="${isPaused ? "0" : "1"}"><button type="submit" class="quiet">${isPaused ? "Resume" : "Pause"}</button></form>
<h2>Remove</h2>
<form method="post" action="/admin/feeds/${String(id)}/remove" class="inline-form">${token}<button type="submit" class="danger">Remove this feed and its ${String(feed.postCount)} posts</button></form>`;
    kit.send(request, reply, session, {
      title: visibleText(feed.feedName, 200),
      section: "feeds",
      status: state.status,
      notice: doneNotice(request, notices),
      main,
    });
  }

  app.get(
    "/admin/feeds/:id",
    hidden,
    guard.page((request, reply, session) => detail(request, reply, session)),
  );

  app.post(
    "/admin/feeds/:id/edit",
    hidden,
    guard.action(async (request, reply, session, { fields }) => {
      const id = routeId(request, "feed");
      const category = field(fields, "category");
      const language = field(fields, "language");
      try {
        await store.admin.editFeed(
          session.actor,
          id,
          {
            feedName: field(fields, "name"),
            categoryId: category === "" ? null : Number(category),
            languageId: /^\d{1,9}$/.test(language) ? Number(language) : undefined,
          },
          now(),
        );
      } catch (error) {
        return detail(request, reply, session, { status: 400, errors: fieldErrorsOf(error, "name") });
      }
      redirect(reply, `/admin/feeds/${id}?done=edited`);
    }),
  );

  app.post(
    "/admin/feeds/:id/pause",
    hidden,
    guard.action(async (request, reply, session, { fields }) => {
      const id = routeId(request, "feed");
      const pause = field(fields, "paused") === "1";
      await store.admin.setFeedPaused(session.actor, id, pause, now());
      redirect(reply, `/admin/feeds/${id}?done=${pause ? "paused" : "resumed"}`);
    }),
  );

  app.post(
    "/admin/feeds/:id/refresh",
    hidden,
    guard.action(async (request, reply, session) => {
      const id = routeId(request, "feed");
      if (!(await store.admin.refreshFeedNow(session.actor, id, now()))) {
        throw new FeedServiceError("FEED_NOT_FOUND", `No feed has id ${id}.`);
      }
      await kit.fetchNow((await store.feedById(id))!);
      redirect(reply, `/admin/feeds/${id}?done=refreshed`);
    }),
  );

  app.post(
    "/admin/feeds/:id/remove",
    hidden,
    guard.action(async (request, reply, session) => {
      const id = routeId(request, "feed");
      if (!(await store.admin.removeFeed(session.actor, id, now()))) {
        throw new FeedServiceError("FEED_NOT_FOUND", `No feed has id ${id}.`);
      }
      redirect(reply, "/admin/feeds?done=removed");
    }),
  );
}
