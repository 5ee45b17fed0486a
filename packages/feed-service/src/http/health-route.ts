/** `GET /healthz`: 200 `{"status":"ok"}` when the database answers, 503 otherwise (spec §5). */
import type { FastifyReply } from "fastify";
import type { Store } from "../store/store.js";
import { sendJson } from "./responses.js";

const pingTimeoutMs = 2000;

export async function handleHealth(store: Store, reply: FastifyReply): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), pingTimeoutMs);
  });
  const ok = await Promise.race([store.ping().catch(() => false), timeout]);
  clearTimeout(timer);
  if (ok) sendJson(reply, 200, { status: "ok" });
  else sendJson(reply, 503, { status: "unavailable", reason: "the database does not answer" });
}
