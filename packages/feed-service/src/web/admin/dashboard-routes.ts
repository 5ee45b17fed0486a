/**
 * `/admin` (what needs attention: suggestions waiting, broken feeds, recent failures, the latest
 * changes) and `/admin/opml` (import by upload, export as a download), spec §5.5.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { FeedServiceError } from "../../errors.js";
import { feedsByName } from "../../operations/by-name.js";
import { timeElement, utcText } from "../display-format.js";
import { type Html, html } from "../html.js";
import type { AdminSession } from "./admin-guard.js";
import { type AdminKit, hidden } from "./admin-kit.js";
import { csrfInput, formError, shown } from "./admin-layout.js";

export function dashboardRoutes(kit: AdminKit): void {
  const { app, store, guard, now } = kit;

  app.get(
    "/admin",
    hidden,
    guard.page(async (request, reply, session) => {
      const [waiting, feeds, audit] = await Promise.all([
        store.admin.suggestions("waiting"),
        store.adminFeeds(),
        store.admin.auditLog({ limit: 10 }),
      ]);
      const at = now();
      const broken = feeds.filter((f) => f.errorCount > 0).sort((a, b) => b.errorCount - a.errorCount);
      const failures = feeds
        .filter((f) => f.lastErrorAt !== null && f.lastErrorAt > at - 7 * 86_400_000)
        .sort((a, b) => b.lastErrorAt! - a.lastErrorAt!)
        .slice(0, 10);
      const main = html`<h2>Suggestions</h2>
<p>${waiting.length === 0 ? "No suggestion waits." : html`<a href="/admin/suggestions">${String(waiting.length)} suggestion${waiting.length === 1 ? "" : "s"} waiting</a>`}</p>
<h2>Broken feeds</h2>
${
  broken.length === 0
    ? html`<p>Every feed's last fetch went well.</p>`
    : html`<ul>${broken.map((f) => html`<li><a href="/admin/feeds/${String(f.feedId)}">${shown(f.feedName)}</a>: ${String(f.errorCount)} failures in a row, ${f.lastErrorCode ?? "?"}</li>`)}</ul>`
}
<h2>Failures of the last 7 days</h2>
${
  failures.length === 0
    ? html`<p>None.</p>`
    : html`<ul>${failures.map((f) => html`<li>${timeElement(f.lastErrorAt, at)}: <a href="/admin/feeds/${String(f.feedId)}">${shown(f.feedName)}</a>, ${f.lastErrorCode ?? "?"} (${f.lastErrorStage ?? "?"})</li>`)}</ul>`
}
<h2>Latest changes</h2>
${
  audit.length === 0
    ? html`<p>Nothing yet.</p>`
    : html`<ul>${audit.map((r) => html`<li>${utcText(r.at)}: ${shown(r.actor)} ${r.action} ${shown(r.subject)}</li>`)}</ul><p><a href="/admin/audit">The whole audit log</a></p>`
}`;
      kit.send(request, reply, session, { title: "Dashboard", section: "dashboard", main });
    }),
  );

  function opmlPage(
    request: FastifyRequest,
    reply: FastifyReply,
    session: AdminSession,
    state: { status?: number; error?: string; result?: Html } = {},
  ) {
    const main = html`${state.result ?? ""}
<h2>Import</h2>
<form class="form" method="post" action="/admin/opml" enctype="multipart/form-data">${csrfInput(session)}
${formError(state.error ? { "": state.error } : {})}
<div class="field"><label for="f-opml">OPML file</label><span class="hint" id="f-opml-hint">Each feed is added, its outline's category created when new; feeds already here are left as they are.</span>
<input id="f-opml" name="opml" type="file" accept=".opml,.xml,text/xml,application/xml,text/x-opml" required aria-describedby="f-opml-hint"></div>
<div><button type="submit">Import</button></div></form>
<h2>Export</h2>
<p><a href="/admin/opml/export" download="subscriptions.opml">Every feed as OPML 2.0</a></p>`;
    kit.send(request, reply, session, { title: "OPML", section: "opml", status: state.status, main });
  }

  app.get(
    "/admin/opml",
    hidden,
    guard.page(async (request, reply, session) => opmlPage(request, reply, session)),
  );

  app.post(
    "/admin/opml",
    hidden,
    guard.action(async (request, reply, session, { files }) => {
      const bytes = files.get("opml");
      if (!bytes || bytes.length === 0) {
        return opmlPage(request, reply, session, { status: 400, error: "Choose an OPML file to import." });
      }
      const [{ readOpml }, { importSubscriptions }] = await Promise.all([
        import("../../opml/opml-reader.js"),
        import("../../opml/opml-import.js"),
      ]);
      try {
        const subs = readOpml(bytes, null);
        const result = await importSubscriptions(store, subs, session.actor);
        const summary = html`<p class="notice" role="status">${String(subs.length)} feeds in the file: ${String(result.added)} added, ${String(result.alreadyPresent)} already here, ${String(result.skipped.length)} skipped. New feeds are fetched by the next ingest pass.</p>
${result.skipped.length > 0 ? html`<ul>${result.skipped.map((s) => html`<li>${shown(s.feedUrl, 300)}: ${shown(s.reason)}</li>`)}</ul>` : ""}`;
        opmlPage(request, reply, session, { result: summary });
      } catch (error) {
        if (!(error instanceof FeedServiceError) || error.code === "FEED_INTERNAL_ERROR") throw error;
        opmlPage(request, reply, session, { status: 400, error: error.message });
      }
    }),
  );

  app.get(
    "/admin/opml/export",
    hidden,
    guard.page(async (_request, reply) => {
      const { writeOpml } = await import("../../opml/opml-writer.js");
      const feeds = feedsByName(await store.feeds());
      // The OPML writer wants at least one outline; no feed is an empty body.
      const opml =
        feeds.length === 0
          ? '<?xml version="1.0" encoding="utf-8"?>\n<opml version="2.0"><head><title>feed-service subscriptions</title></head><body></body></opml>\n'
          : writeOpml(feeds, new Date(now()));
      reply
        .header("Cache-Control", "no-store")
        .header("Content-Disposition", 'attachment; filename="subscriptions.opml"')
        .type("text/x-opml; charset=utf-8")
        .send(opml);
    }),
  );
}
