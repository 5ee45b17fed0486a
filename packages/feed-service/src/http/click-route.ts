/**
 * `GET /click/<postId>`: counts a click and redirects to the post (spec §4). Repeated clicks from one
 * client on one post within 10 minutes count once; the client address is stored only as an
 * HMAC-SHA256 under the install's secret, so every process of one install hashes alike.
 */
import { createHmac } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Store } from "../store/store.js";
import { sendText } from "./responses.js";

export const clickDedupeWindowMs = 10 * 60_000;

export interface ClickRoute {
  handle(req: IncomingMessage, res: ServerResponse, idText: string): Promise<void>;
}

export function createClickRoute(store: Store, now: () => number = Date.now): ClickRoute {
  let secret: Promise<string> | undefined;
  const hashClient = async (address: string): Promise<string> => {
    secret ??= store.installSecret();
    try {
      return createHmac("sha256", await secret)
        .update(address)
        .digest("hex");
    } catch (error) {
      secret = undefined; // a failed read is retried by the next click
      throw error;
    }
  };
  return {
    async handle(req, res, idText) {
      const postId = /^\d{1,15}$/.test(idText) ? Number(idText) : Number.NaN;
      if (!Number.isSafeInteger(postId) || postId < 1) {
        sendText(res, 404, "No post has this id.\n");
        return;
      }
      const clientHash = await hashClient(req.socket.remoteAddress ?? "unknown");
      const hit = await store.recordClick(postId, clientHash, now(), clickDedupeWindowMs);
      if (!hit) {
        sendText(res, 404, `No post has id ${postId}.\n`);
        return;
      }
      res.writeHead(302, {
        Location: hit.link,
        "Content-Type": "text/plain; charset=utf-8",
        "Cache-Control": "no-store",
      });
      res.end(`Redirecting to the post.\n`);
    },
  };
}
