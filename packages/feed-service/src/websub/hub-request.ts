/**
 * The subscriber's request to a hub (W3C WebSub Recommendation §5.1): a form-encoded POST with
 * hub.mode, hub.topic, hub.callback, hub.lease_seconds and hub.secret. The hub answers 202 when
 * it will verify the request (§5.1.2); anything else is a failure whose reason is kept short and
 * free of control characters, as it ends up in `feeds list`.
 */
import { type Dispatcher, request } from "undici";
import { refusalIn } from "../ingest/fetch-address-rule.js";

export interface SubscriptionRequest {
  mode: "subscribe" | "unsubscribe";
  hubUrl: string;
  topicUrl: string;
  callbackUrl: string;
  secret: string;
  leaseSeconds: number;
}

export class HubRequestError extends Error {
  override readonly name = "HubRequestError";
}

function shortText(text: string, max: number): string {
  return text
    .replace(/[\u0000-\u001f\u007f\s]+/g, " ")
    .trim()
    .slice(0, max);
}

/**
 * Sends one subscription request; resolves when the hub accepted it (any 2xx), throws a
 * `HubRequestError` with a one-line reason otherwise.
 *
 * @example
 * await sendSubscriptionRequest({ mode: "subscribe", hubUrl, topicUrl, callbackUrl, secret, leaseSeconds: 864000 });
 */
export async function sendSubscriptionRequest(
  req: SubscriptionRequest,
  opts: { dispatcher?: Dispatcher; timeoutMs?: number; userAgent?: string } = {},
): Promise<void> {
  const form = new URLSearchParams({
    "hub.mode": req.mode,
    "hub.topic": req.topicUrl,
    "hub.callback": req.callbackUrl,
    "hub.lease_seconds": String(req.leaseSeconds),
    "hub.secret": req.secret,
  });
  let res: Dispatcher.ResponseData;
  try {
    res = await request(req.hubUrl, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "user-agent": opts.userAgent ?? "feed-service/0.1 (WebSub subscriber)",
      },
      body: form.toString(),
      dispatcher: opts.dispatcher,
      // undici follows no redirects here: a hub that moved answers 3xx, a failure like any other.
      signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
    });
  } catch (error) {
    const refusal = refusalIn(error);
    if (refusal)
      throw new HubRequestError(
        `The hub was not asked: ${refusal.message.replace(/\.$/, "")} (--allow-private-fetch).`,
        {
          cause: error,
        },
      );
    const code = (error as { code?: string }).code ?? (error as { name?: string }).name ?? "network error";
    throw new HubRequestError(`The hub could not be reached (${code}).`, { cause: error });
  }
  if (res.statusCode >= 200 && res.statusCode < 300) {
    await res.body.dump().catch(() => {});
    return;
  }
  // The hub's reason (§5.1.2: the body may say why) in a few words, never the whole body.
  let reason = "";
  try {
    reason = shortText((await res.body.text()).slice(0, 1000), 160);
  } catch {}
  throw new HubRequestError(`The hub answered HTTP ${res.statusCode}${reason ? `: ${reason}` : ""}.`);
}
