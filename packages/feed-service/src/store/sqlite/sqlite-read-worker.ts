/**
 * A query thread of the SQLite read pool (sqlite-read-pool.ts): its own read-only connection and
 * store, answering one read call at a time. Errors go back as code and message only: the pool
 * rebuilds the FeedServiceError, and anything else becomes a generic failure on the other side.
 */
import { parentPort, workerData } from "node:worker_threads";
import { FeedServiceError } from "../../errors.js";
import { type WorkerReply, workerReadyMessage } from "../../threads/thread-lane.js";
import { lowerThisThreadPriority } from "../../threads/thread-priority.js";
import { openSqliteReader } from "./sqlite-connection.js";
import { readMethods, type SqliteReadMethod } from "./sqlite-read-methods.js";
import { SqliteStore } from "./sqlite-store.js";
import { warmQueryThread } from "./sqlite-thread-warm.js";

const { path, nice, warm } = workerData as { path: string; nice: number; warm: boolean };
if (nice !== 0) lowerThisThreadPriority(nice);
const store = new SqliteStore(openSqliteReader(path));
const allowed = new Set<string>(readMethods);

try {
  await warmQueryThread(store, warm);
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
