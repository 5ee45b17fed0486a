/**
 * `/admin/sign-in` and `POST /admin/sign-out` (spec §5.5). A failed sign-in answers the same
 * message, after the same scrypt work, whether the name exists or not; 5 failures for one name or
 * from one address in 15 minutes turn further tries away with 429 and Retry-After, unchecked. The
 * sign-in form is protected from cross-site posting by the same-origin check and a token in a
 * cookie that only this site's form page sets (there is no session to hold one yet).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { verifyPassword } from "../../admin/passwords.js";
import { throttleKeys, throttleWait } from "../../admin/sign-in-throttle.js";
import { html } from "../html.js";
import { randomToken } from "./admin-guard.js";
import {
  adminCookie,
  clientHasher,
  field,
  readCookie,
  readForm,
  redirect,
  sameOrigin,
  sendPage,
} from "./admin-http.js";
import type { AdminKit } from "./admin-kit.js";
import { adminDocument, type FieldErrors, formError, formField } from "./admin-layout.js";

const signInCookie = "feed_sign_in";
const wrong = "The name or password is wrong.";

/** Where to go after signing in: a page under /admin named by the form, else the dashboard. */
function nextPage(text: string): string {
  return /^\/admin(\/[A-Za-z0-9/_-]*)?$/.test(text) ? text : "/admin";
}

export function signInRoutes(kit: AdminKit, secure: boolean): void {
  const { app, store, guard, now } = kit;
  const hashClient = clientHasher(store);

  function form(
    request: FastifyRequest,
    reply: FastifyReply,
    state: {
      status: number;
      name?: string;
      next?: string;
      errors?: FieldErrors;
      token?: string;
      signedOut?: boolean;
    },
  ) {
    const token = state.token ?? randomToken();
    reply.header("Set-Cookie", adminCookie(signInCookie, token, secure));
    const errors = state.errors ?? {};
    const main = html`${state.signedOut ? html`<p class="notice" role="status">Signed out.</p>` : ""}<form class="form" method="post" action="/admin/sign-in">
${formError(errors)}
<input type="hidden" name="csrf" value="${token}">
<input type="hidden" name="next" value="${nextPage(state.next ?? "/admin")}">
${formField({ name: "name", label: "Name", value: state.name ?? "", required: true, autocomplete: "username", maxlength: 64 }, errors)}
${formField({ name: "password", label: "Password", type: "password", required: true, autocomplete: "current-password" }, errors)}
<div><button type="submit">Sign in</button></div>
</form>`;
    sendPage(
      reply,
      state.status,
      adminDocument({ title: "Sign in", section: "none", main }, null, kit.context(request)),
    );
  }

  app.get("/admin/sign-in", { schema: { hide: true } }, async (request, reply) => {
    if (await guard.session(request)) return redirect(reply, "/admin");
    const { next, done } = request.query as Record<string, unknown>;
    form(request, reply, {
      status: 200,
      next: typeof next === "string" ? next : undefined,
      signedOut: done === "signed-out",
    });
  });

  app.post("/admin/sign-in", { schema: { hide: true } }, async (request, reply) => {
    if (!sameOrigin(request, kit.context(request).baseUrl)) {
      return guard.forbidden(
        request,
        reply,
        "This form was sent from another site, so no one was signed in.",
      );
    }
    const { fields } = readForm(request);
    const cookie = readCookie(request, signInCookie);
    if (!cookie || cookie !== field(fields, "csrf")) {
      return form(request, reply, {
        status: 403,
        errors: { "": "This sign-in form is out of date; it has been renewed. Please sign in again." },
      });
    }
    const name = field(fields, "name").trim();
    const password = field(fields, "password");
    const next = field(fields, "next");
    const keys = throttleKeys(name, await hashClient(request));
    const wait = await throttleWait(store, keys, now());
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      reply.header("Retry-After", String(seconds));
      const minutes = Math.ceil(seconds / 60);
      return form(request, reply, {
        status: 429,
        name,
        next,
        errors: {
          "": `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
        },
      });
    }
    const user = name === "" ? undefined : await store.admin.userCredentials(name);
    // An unknown name is checked against a decoy hash: the answer takes as long as for a known one.
    const ok = (await verifyPassword(password, user?.passwordHash)) && user !== undefined;
    if (!ok) {
      await store.admin.recordSignInFailure(keys, now());
      return form(request, reply, { status: 401, name, next, errors: { "": wrong } });
    }
    // A session id the browser held before (planted or old) ends: the new one is fresh.
    const old = await guard.session(request);
    if (old) await store.admin.endSession(old.idHash);
    await guard.startSession(reply, user.userId);
    // Fastify adds each Set-Cookie to the ones already set.
    reply.header("Set-Cookie", adminCookie(signInCookie, "", secure, 0));
    redirect(reply, nextPage(next));
  });

  app.post(
    "/admin/sign-out",
    { schema: { hide: true } },
    guard.action(async (request, reply) => {
      await guard.endSession(request, reply);
      redirect(reply, "/admin/sign-in?done=signed-out");
    }),
  );
}
