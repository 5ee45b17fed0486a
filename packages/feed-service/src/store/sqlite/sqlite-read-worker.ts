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
import { absentWord } from "../cache-warm.js";
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
 * thread (`warm`) also runs each kind of heavy read once on arguments that select nothing (a word
 * no post holds, a window that ends now; the language data, which takes none): a thread's first
 * such call otherwise pays for compiling its statements and optimising its code; and it reads
 * every post's length for scoring into its
 * connection's cache (a seek per hit scored on a first search otherwise), and the feed rankings'
 * running sums and the day counts (a page per feed on a first ranking). No particular word, post
 * or window is read into a cache (spec §4 Latency); the file itself was read into the OS cache by
 * the pool (sqlite-warm.ts).
 */
async function warmUp(): Promise<void> {
  await store.recentPosts({ limit: 1, offset: 0, languageIds: null });
  if (!warm) return;
  const now = Date.now();
  const query = parseSearchQuery(absentWord());
  for (const sort of ["relevance", "date", "clicks"] as const) {
    for (const languageIds of [null, [1]]) {
      await store.searchPosts({ query, sort, limit: 1000, offset: 0, languageIds });
    }
  }
  await store.mostPopularPosts({ since: now, limit: 1000, categoryId: null });
  await store.mostPopularFeeds({ since: now, limit: 1000 });
  await store.mostProlificFeeds({ since: now, limit: 1000 });
  // The language data has no argument: its statement and the pages of each language's newest
  // posts it reads, a first call's 30-40 page reads otherwise.
  await store.aggregateLanguageData(now);
  await store.warmSearchLengths();
  await store.warmRankingTables();
}

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
