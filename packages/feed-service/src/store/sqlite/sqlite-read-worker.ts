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
import { backstopPages, checkpointDelayMs } from "./sqlite-checkpointer.js";
import { openSqliteReader } from "./sqlite-connection.js";
import { readMethods, type SqliteReadMethod } from "./sqlite-read-methods.js";
import { type ReadSnapshotTag, SqliteStore } from "./sqlite-store.js";

const { path, nice, warm } = workerData as { path: string; nice: number; warm: boolean };
if (nice !== 0) lowerThisThreadPriority(nice);
const db = openSqliteReader(path);
const store = new SqliteStore(db);
const allowed = new Set<string>(readMethods);

/**
 * The open read transaction's tag (the writer's, when it began), or undefined when none is open.
 * In WAL mode a connection that starts a read transaction after any commit to the file drops its
 * whole page cache (https://sqlite.org/wal.html; pager_reset in pager.c), and every search
 * recorded in the history is such a commit: the next call on every query thread then reads each
 * page it touches from the OS again, its warm-up's included. A heavy thread therefore keeps one
 * read transaction across calls while the only writes since it began are recorded searches, which
 * no heavy read reads (the search history is on the light lane): the snapshot then holds every
 * other write made before the call was handed over, so the answers are those of a fresh read. Any
 * other write (this process's, counted by the writer, or another connection's, by its
 * data_version) begins a new one. An open snapshot also keeps checkpoints from copying the log's
 * later commits into the file and the log from restarting: so it is renewed once the searches
 * since it began could have filled the writer's checkpoint backstop (each is at least one page of
 * the log), and ended when the thread has been idle as long as the checkpoint thread waits after
 * a commit, so that an idle service never holds back the log of an ingest.
 */
let held: ReadSnapshotTag | undefined;
let idle: NodeJS.Timeout | undefined;

function endSnapshot(): void {
  idle = undefined;
  held = undefined;
  if (db.inTransaction) db.exec("COMMIT");
}

function holdSnapshot(tag: ReadSnapshotTag | undefined): void {
  const current =
    held !== undefined &&
    db.inTransaction &&
    tag !== undefined &&
    tag.version === held.version &&
    tag.searches - held.searches < backstopPages;
  if (current) return;
  endSnapshot();
  if (tag === undefined) return;
  // DEFERRED: the snapshot is taken by the call's first read, after the tag was read.
  db.exec("BEGIN");
  held = tag;
}

/**
 * Reads before saying ready. Every thread: one cheap read (SQLite reads the schema on a
 * connection's first statement, which for this schema is a noticeable first-call cost). A heavy
 * thread (`warm`) also runs each kind of heavy read once on arguments that select nothing (a word
 * no post holds, a window that ends now): a thread's first such call otherwise pays for compiling
 * its statements and optimising its code; and it reads every post's length for scoring into its
 * connection's cache (a seek per hit scored on a first search otherwise). No particular word, post
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
  await store.warmSearchLengths();
}

try {
  await warmUp();
} catch {
  // A broken database shows itself on the calls, with their errors; readiness is not the place.
}
parentPort!.postMessage(workerReadyMessage);

parentPort!.on(
  "message",
  async (request: { id: number; method: string; args: unknown[]; context?: ReadSnapshotTag }) => {
    let reply: WorkerReply;
    try {
      clearTimeout(idle);
      if (!allowed.has(request.method)) throw new Error(`${request.method} is not a read method`);
      holdSnapshot(request.context);
      const method = store[request.method as SqliteReadMethod] as (...args: unknown[]) => Promise<unknown>;
      reply = { id: request.id, ok: true, value: await method.apply(store, request.args) };
    } catch (error) {
      reply =
        error instanceof FeedServiceError
          ? { id: request.id, ok: false, code: error.code, message: error.message }
          : { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    parentPort!.postMessage(reply);
    if (held !== undefined) idle = setTimeout(endSnapshot, checkpointDelayMs).unref();
  },
);
