/**
 * `GET /click/<postId>`: counts a click and redirects to the post (spec §4). Repeated clicks from one
 * client on one post within 10 minutes count once; the client address is stored only as an
 * HMAC-SHA256 under the install's secret, so every process of one install hashes alike.
 */
import { createHmac } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Store } from "../store/store.js";
import { sendText } from "./responses.js";

export const clickDedupeWindowMs = 10 * 60_000;

export interface ClickRoute {
  handle(request: FastifyRequest<{ Params: { postId: string } }>, reply: FastifyReply): Promise<void>;
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
    async handle(request, reply) {
      const idText = request.params.postId;
      const postId = /^\d{1,15}$/.test(idText) ? Number(idText) : Number.NaN;
      if (!Number.isSafeInteger(postId) || postId < 1) {
        sendText(reply, 404, "No post has this id.\n");
        return;
      }
      const clientHash = await hashClient(request.socket.remoteAddress ?? "unknown");
      const hit = await store.recordClick(postId, clientHash, now(), clickDedupeWindowMs);
      if (!hit) {
        sendText(reply, 404, `No post has id ${postId}.\n`);
        return;
      }
      reply
        .code(302)
        .header("location", hit.link)
        .header("content-type", "text/plain; charset=utf-8")
        .header("cache-control", "no-store")
        .send("Redirecting to the post.\n");
    },
  };
}
