/**
 * The subscriber's callback URLs, `/websub/<callbackId>` (W3C WebSub Recommendation §5.3, §7):
 * - GET: the hub verifies our intent. hub.mode=subscribe is answered with hub.challenge only
 *   when the callback and hub.topic match a subscription we asked for (pending, or active while
 *   renewing); we never ask to unsubscribe, so hub.mode=unsubscribe is always refused (404);
 *   hub.mode=denied is recorded. Anything unknown is 404.
 * - POST: content distribution. Unknown callback 404; a subscription we no longer hold 410 (§7:
 *   the hub may then drop it); a body over the limit 413 before anything is stored. A missing or
 *   invalid X-Hub-Signature gets the same 202 as a valid one but the body is ignored (§7.1.2:
 *   "MUST locally ignore", and acknowledging with 2xx keeps the signature from being probed); a
 *   valid one goes through the ingest pipeline (pushed-content.ts).
 * Registered as its own Fastify plugin so that its body parser and error answers stay its own.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { errorCodes } from "fastify";
import { readRequestBody } from "../http/request-body.js";
import { sendText } from "../http/responses.js";
import type { Store } from "../store/store.js";
import type { WebSubStore, WebSubSubscription } from "../store/websub-store.js";
import { hubSignatureIsValid } from "./hub-signature.js";
import { storePushedDocument } from "./pushed-content.js";
import { webSubTimings } from "./websub-timings.js";

export interface CallbackRoutesOptions {
  store: Store;
  subscriptions: WebSubStore;
  /** Largest pushed body accepted (413 above it). */
  maxBodyBytes: number;
  now?: () => number;
  logError: (message: string) => void;
}

/** Callback ids are 24 random bytes in base64url (32 characters); anything else is unknown. */
const callbackIdShape = /^[A-Za-z0-9_-]{16,64}$/;
/** The longest lease taken from a hub: a year (anything longer is read as a year). */
const maxLeaseSeconds = 365 * 24 * 3600;

type CallbackRoute = { Params: { callbackId: string }; Querystring: Record<string, unknown> };
type CallbackRequest = FastifyRequest<CallbackRoute>;

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * @example
 * app.register(webSubCallbackRoutes({ store, subscriptions: store.websub, maxBodyBytes: 1 << 20, logError }));
 */
export function webSubCallbackRoutes(options: CallbackRoutesOptions) {
  const { store, subscriptions, logError } = options;
  const clock = options.now ?? Date.now;
  const found = new WeakMap<object, WebSubSubscription>();

  async function lookUp(request: CallbackRequest, reply: FastifyReply): Promise<void> {
    const id = request.params.callbackId;
    const sub = callbackIdShape.test(id) ? await subscriptions.subscriptionByCallback(id) : undefined;
    if (!sub) return sendText(reply, 404, "No subscription has this callback.\n");
    if (request.method === "POST" && sub.state !== "active" && sub.state !== "pending")
      return sendText(reply, 410, "This subscription has ended.\n");
    found.set(request.raw, sub);
  }

  async function verify(request: CallbackRequest, reply: FastifyReply): Promise<void> {
    const sub = found.get(request.raw)!;
    const mode = text(request.query["hub.mode"]);
    const topic = text(request.query["hub.topic"]);
    const now = clock();
    if (topic !== sub.topicUrl)
      return sendText(reply, 404, "No subscription to this topic has this callback.\n");
    if (mode === "denied") {
      const reason = text(request.query["hub.reason"])
        ?.replace(/[\u0000-\u001f\u007f\s]+/g, " ")
        .trim()
        .slice(0, 200);
      await subscriptions.updateSubscription(sub.feedId, {
        state: "denied",
        lastError: `The hub denied the subscription${reason ? `: ${reason}` : ""}.`,
        nextAttemptAt: now + webSubTimings.deniedRetryMs,
      });
      return sendText(reply, 200, "Noted.\n");
    }
    if (mode === "unsubscribe") return sendText(reply, 404, "This subscriber asked for no unsubscription.\n");
    if (mode !== "subscribe")
      return sendText(reply, 400, "hub.mode must be subscribe, unsubscribe or denied.\n");
    const challenge = text(request.query["hub.challenge"]);
    if (!challenge) return sendText(reply, 400, "hub.challenge is missing.\n");
    if (sub.state !== "pending" && sub.state !== "active")
      return sendText(reply, 404, "No subscription to this topic is waiting for verification.\n");
    // §5.3: the hub says the lease it grants; without a usable one, the lease we asked for.
    const granted = Number(text(request.query["hub.lease_seconds"]));
    const leaseSeconds =
      Number.isInteger(granted) && granted > 0
        ? Math.min(granted, maxLeaseSeconds)
        : webSubTimings.requestedLeaseSeconds;
    await subscriptions.updateSubscription(sub.feedId, {
      state: "active",
      leaseSeconds,
      leaseExpiresAt: now + leaseSeconds * 1000,
      verifiedAt: now,
      nextAttemptAt: now + Math.round(leaseSeconds * 1000 * webSubTimings.renewAt),
      attempts: 0,
      lastError: null,
    });
    reply.code(200).header("content-type", "text/plain; charset=utf-8").send(challenge);
  }

  async function push(request: CallbackRequest, reply: FastifyReply): Promise<void> {
    const sub = found.get(request.raw)!;
    const body = request.body as Buffer;
    if (!sub.secret || !hubSignatureIsValid(request.headers["x-hub-signature"], body, sub.secret)) {
      return sendText(reply, 202, "Accepted.\n");
    }
    try {
      await storePushedDocument(
        store,
        subscriptions,
        sub,
        {
          body,
          contentType: text(request.headers["content-type"]) ?? null,
          contentLanguage: text(request.headers["content-language"]) ?? null,
        },
        clock(),
      );
    } catch (error) {
      logError(
        `WebSub push for feed ${sub.feedId} not stored: ${error instanceof Error ? error.message : "unexpected error"}`,
      );
      return sendText(reply, 503, "The content could not be stored now; send it again later.\n", {
        "retry-after": "60",
      });
    }
    sendText(reply, 202, "Accepted.\n");
  }

  function error(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    reply.header("connection", "close");
    if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      sendText(reply, 413, `Pushed content is limited to ${options.maxBodyBytes} bytes.\n`);
    } else if (err.code === "FST_ERR_CTP_INVALID_CONTENT_LENGTH") {
      sendText(reply, 400, "The request body could not be read (it ended early or its length was wrong).\n");
    } else {
      logError(`${request.method} /websub/… failed: ${err.message}`);
      sendText(reply, 500, "The server failed to answer this request.\n");
    }
  }

  return async function webSubCallbacks(app: FastifyInstance): Promise<void> {
    // This plugin's own body parser: raw bytes up to the limit, whatever the Content-Type (the
    // signature covers the bytes as sent).
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", (_request, payload, done) => {
      readRequestBody(payload, options.maxBodyBytes).then((read) => {
        if (read.kind === "ok") return done(null, read.body);
        if (read.kind === "too-large") {
          payload.resume();
          return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        }
        done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      });
    });
    const url = "/websub/:callbackId";
    const common = { url, schema: { hide: true }, onRequest: lookUp, errorHandler: error };
    app.route<CallbackRoute>({ method: "GET", ...common, handler: verify });
    app.route<CallbackRoute>({ method: "POST", ...common, handler: push });
  };
}
