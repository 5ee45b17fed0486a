/** `GET /healthz`: 200 `{"status":"ok"}` when the database answers, 503 otherwise (spec §5). */
import type { FastifyReply } from "fastify";
import type { Store } from "../store/store.js";

const pingTimeoutMs = 2000;

export async function handleHealth(store: Store, reply: FastifyReply): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), pingTimeoutMs);
  });
  const ok = await Promise.race([store.ping().catch(() => false), timeout]);
  clearTimeout(timer);
  // Fastify serialises the object and labels it application/json; charset=utf-8.
  reply.code(ok ? 200 : 503).header("cache-control", "no-store");
  reply.send(ok ? { status: "ok" } : { status: "unavailable", reason: "the database does not answer" });
}
