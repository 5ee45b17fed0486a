/**
 * Who may do what under /admin (spec §5.5): a page needs a live session (else a redirect to the
 * sign-in form); a POST needs a live session, the same origin and the session's CSRF token (else
 * 403 and nothing changes). Sessions are a random 256-bit id in a cookie; the store keeps its
 * SHA-256 only, and forgets it after 12 hours without use.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { SessionRecord } from "../../store/admin-store.js";
import type { Store } from "../../store/store.js";
import { html } from "../html.js";
import type { PageContext } from "../page-context.js";
import { errorPage } from "../pages/error-page.js";
import {
  adminCookie,
  type FormFields,
  field,
  readCookie,
  readForm,
  redirect,
  sameOrigin,
  sendPage,
  sessionIdHash,
} from "./admin-http.js";
import { adminDocument } from "./admin-layout.js";

export const sessionCookie = "feed_admin";
/** Spec §5.5: a session ends after 12 hours without use. */
export const sessionIdleMs = 12 * 60 * 60 * 1000;

export interface AdminSession extends SessionRecord {
  readonly idHash: string;
  /** The audit log's name for this administrator. */
  readonly actor: string;
}

export interface AdminGuardOptions {
  readonly store: Store;
  readonly now: () => number;
  /** The public URL is https: cookies carry Secure. */
  readonly secure: boolean;
  readonly context: (request: FastifyRequest) => PageContext;
  readonly logError: (message: string) => void;
}

export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

function tokensMatch(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface AdminGuard {
  /** The live session of the request, if any. */
  session(request: FastifyRequest): Promise<AdminSession | undefined>;
  /** Starts a session for the user: a new id every time (no fixation), its cookie set. */
  startSession(reply: FastifyReply, userId: number): Promise<void>;
  /** Ends the request's session and clears its cookie. */
  endSession(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** A page handler that needs a session; without one, a redirect to sign in. */
  page(
    handler: (request: FastifyRequest, reply: FastifyReply, session: AdminSession) => Promise<void>,
  ): (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** A POST handler that needs a session, the same origin and the CSRF token; else 403. */
  action(
    handler: (
      request: FastifyRequest,
      reply: FastifyReply,
      session: AdminSession,
      form: { fields: FormFields; files: Map<string, Buffer> },
    ) => Promise<void>,
  ): (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** The 403 page (no session, another origin, a wrong token). */
  forbidden(request: FastifyRequest, reply: FastifyReply, why: string): void;
}

export function createAdminGuard(options: AdminGuardOptions): AdminGuard {
  const { store, now, secure } = options;

  async function session(request: FastifyRequest): Promise<AdminSession | undefined> {
    const id = readCookie(request, sessionCookie);
    if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
    const idHash = sessionIdHash(id);
    const found = await store.admin.touchSession(idHash, now(), sessionIdleMs);
    return found ? { ...found, idHash, actor: `admin:${found.userName}` } : undefined;
  }

  function forbidden(request: FastifyRequest, reply: FastifyReply, why: string): void {
    const main = html`<p class="error-message">${why}</p><p><a href="/admin/sign-in">Sign in</a></p>`;
    sendPage(
      reply,
      403,
      adminDocument({ title: "Not allowed", section: "none", main }, null, options.context(request)),
    );
  }

  /** A refused or failed request's page: the public error pages' statuses and messages. */
  async function guarded(
    request: FastifyRequest,
    reply: FastifyReply,
    work: () => Promise<void>,
  ): Promise<void> {
    try {
      await work();
    } catch (error) {
      const failed = errorPage(error, options.context(request));
      if (failed.status === 500) {
        options.logError(
          `${request.method} ${(request.raw.url ?? "").slice(0, 200)} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (failed.retryAfterSeconds !== undefined)
        reply.header("Retry-After", String(failed.retryAfterSeconds));
      sendPage(reply, failed.status, failed.body);
    }
  }

  return {
    session,
    forbidden,
    async startSession(reply, userId) {
      const id = randomToken();
      // Sessions left idle past their expiry are swept here, so that none lingers in the table.
      await store.admin.endIdleSessions(now() - sessionIdleMs);
      await store.admin.createSession({
        idHash: sessionIdHash(id),
        userId,
        csrfToken: randomToken(),
        now: now(),
      });
      reply.header("Set-Cookie", adminCookie(sessionCookie, id, secure));
    },
    async endSession(request, reply) {
      const id = readCookie(request, sessionCookie);
      if (id) await store.admin.endSession(sessionIdHash(id));
      reply.header("Set-Cookie", adminCookie(sessionCookie, "", secure, 0));
    },
    page(handler) {
      return async (request, reply) => {
        const found = await session(request);
        if (!found) {
          const path = (request.raw.url ?? "/admin").split("?")[0]!;
          return redirect(reply, `/admin/sign-in?next=${encodeURIComponent(path)}`);
        }
        await guarded(request, reply, () => handler(request, reply, found));
      };
    },
    action(handler) {
      return async (request, reply) => {
        // The origin first: a cross-site POST learns nothing, not even whether a session is live.
        if (!sameOrigin(request, options.context(request).baseUrl)) {
          return forbidden(request, reply, "This form was sent from another site, so nothing was changed.");
        }
        const found = await session(request);
        if (!found) return forbidden(request, reply, "Sign in first: nothing was changed.");
        const form = readForm(request);
        if (!tokensMatch(field(form.fields, "csrf"), found.csrfToken)) {
          return forbidden(
            request,
            reply,
            "This form is out of date or was not sent from this site (its security token does not match), so nothing was changed. Go back, reload the page and try again.",
          );
        }
        await guarded(request, reply, () => handler(request, reply, found, form));
      };
    },
  };
}
