/**
 * A query thread of the SQLite read pool (sqlite-read-pool.ts): its own read-only connection and
 * store, answering one read call at a time. Errors go back as code and message only: the pool
 * rebuilds the FeedServiceError, and anything else becomes a generic failure on the other side.
 */
import { parentPort, workerData } from "node:worker_threads";
import { FeedServiceError } from "../../errors.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import { type WorkerReply, workerReadyMessage } from "../../threads/thread-lane.js";
import { lowerThisThreadPriority } from "../../threads/thread-priority.js";
import { openSqliteReader } from "./sqlite-connection.js";
import { readMethods, type SqliteReadMethod } from "./sqlite-read-methods.js";
import { SqliteStore } from "./sqlite-store.js";

const { path, nice, warm } = workerData as { path: string; nice: number; warm: boolean };
if (nice !== 0) lowerThisThreadPriority(nice);
const store = new SqliteStore(openSqliteReader(path));
const allowed = new Set<string>(readMethods);

/**
 * Reads before saying ready. Every thread: one cheap read (SQLite reads the schema on a
 * connection's first statement, which for this schema is a noticeable first-call cost). A heavy
 * thread (`warm`) also answers one of each kind of heavy read at its largest page, for nothing: a
 * thread's first such call otherwise pays for compiling its statements, filling its connection's
 * page cache and optimising its code, up to twice the call's cost. Popular posts are read over all
 * time, a week, and the two windows where they work hardest (heavyWindowStarts). Each is bounded
 * (spec §4), and the rest are skipped once a second has gone.
 */
async function warmUp(): Promise<void> {
  await store.recentPosts({ limit: 1, offset: 0, languageIds: null });
  if (!warm) return;
  const now = Date.now();
  const reads = [
    () => store.recentPosts({ limit: 1000, offset: 0, languageIds: null }),
    () => store.mostPopularPosts({ since: 0, limit: 1000, categoryId: null }),
    () => store.mostPopularPosts({ since: now - 7 * DAY, limit: 1000, categoryId: null }),
    ...store
      .popularWindowsToWarm()
      .map((since) => () => store.mostPopularPosts({ since, limit: 1000, categoryId: null })),
    () => store.searchPosts({ ...page, query: parseSearchQuery("the"), sort: "relevance" }),
    () => store.searchPosts({ ...page, query: parseSearchQuery("the new"), sort: "date" }),
  ];
  for (const read of reads) {
    if (Date.now() - now > WARM_BUDGET_MS) break;
    await read();
  }
}
const DAY = 86_400_000;
const WARM_BUDGET_MS = 1_000;
const page = { limit: 1000, offset: 0, languageIds: null };

try {
  await warmUp();
} catch {
  // A broken database shows itself on the calls, with their errors; readiness is not the place.
}
parentPort!.postMessage(workerReadyMessage);

parentPort!.on("message", async (request: { id: number; method: string; args: unknown[] }) => {
  let reply: WorkerReply;
  try {
    if (!allowed.has(request.method)) throw new Error(`${request.method} is not a read method`);
    const method = store[request.method as SqliteReadMethod] as (...args: unknown[]) => Promise<unknown>;
    reply = { id: request.id, ok: true, value: await method.apply(store, request.args) };
  } catch (error) {
    reply =
      error instanceof FeedServiceError
        ? { id: request.id, ok: false, code: error.code, message: error.message }
        : { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
