/**
 * Checkpoints of the SQLite write-ahead log on their own thread. In WAL mode with
 * synchronous=NORMAL a commit only appends to the log; the checkpoint, which copies the log into
 * the database file and waits for the disk (fsync), is what costs. By default SQLite runs it inside
 * the commit that fills the log past 1,000 pages, on the writing thread
 * (https://sqlite.org/wal.html): during ingest that is every few feeds, and the ingest thread waits
 * for it (figures in bench/NOTES.md). Here a worker thread with its own connection runs a PASSIVE
 * checkpoint a while after commits, and the writer's own autocheckpoint stays as a
 * backstop at a larger size, for a worker that falls behind.
 *
 * A checkpoint copies each page once however many commits of the log rewrote it (the B-trees'
 * right edges and interior pages, FTS5's structure record, the roll-ups' rows), and syncs the file
 * once: the longer the interval, the fewer copies and syncs a post costs. But under continuous
 * writes the log never starts over (a writer restarts it only when every frame was copied back,
 * https://sqlite.org/wal.html#avoiding_excessively_large_wal_files), so it grows to the backstop,
 * where the writer copies, on its own thread, what the last interval left: near the backstop the
 * thread checkpoints at the short delay again.
 */
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { workerEntryUrl } from "../../threads/worker-entry-url.js";
import type { CheckpointWorkerData } from "./sqlite-checkpoint-worker.js";

/** Log pages after which the writer checkpoints itself (SQLite's default is 1,000). */
export const backstopPages = 10_000;

/** The interval of checkpoints while the log is well below the backstop. */
export const checkpointDelayMs = 1000;

/** The interval once the log nears the backstop (the writer's own checkpoint then finds little). */
export const nearBackstopDelayMs = 100;

/** Frames of log from which the short interval applies. */
export const nearBackstopFrames = backstopPages * 0.8;

/**
 * How long after a commit the thread checkpoints, given the log's frames at its last checkpoint.
 *
 * @example
 * checkpointDelay(0, { delayMs: 1000, shortDelayMs: 100, nearFrames: 8000 }); // 1000
 * checkpointDelay(9000, { delayMs: 1000, shortDelayMs: 100, nearFrames: 8000 }); // 100
 */
export function checkpointDelay(
  logFrames: number,
  opts: { delayMs: number; shortDelayMs: number; nearFrames: number },
): number {
  return logFrames >= opts.nearFrames ? Math.min(opts.shortDelayMs, opts.delayMs) : opts.delayMs;
}

export class WalCheckpointer {
  readonly #worker: Worker;
  #stopped: Promise<void> | null = null;

  /**
   * Starts the thread for the database of `db` (a file in WAL mode) and raises `db`'s own
   * autocheckpoint to the backstop.
   *
   * @example
   * const checkpointer = new WalCheckpointer(db);
   * // after each commit:
   * checkpointer.committed();
   * // before closing db:
   * await checkpointer.stop();
   */
  constructor(db: Database.Database, delayMs = checkpointDelayMs) {
    db.pragma(`wal_autocheckpoint = ${backstopPages}`);
    const workerData: CheckpointWorkerData = {
      path: db.name,
      delayMs,
      shortDelayMs: nearBackstopDelayMs,
      nearFrames: nearBackstopFrames,
    };
    this.#worker = new Worker(workerEntryUrl(import.meta.url, "sqlite-checkpoint-worker"), { workerData });
    // Never keeps a process alive on its own; a worker that dies leaves the writer's backstop.
    this.#worker.unref();
    this.#worker.on("error", () => {});
  }

  /** Tells the thread that the writer committed: a checkpoint follows shortly. */
  committed(): void {
    if (this.#stopped === null) this.#worker.postMessage("committed");
  }

  /** Runs a last checkpoint and ends the thread (before the writer closes its connection). */
  stop(): Promise<void> {
    this.#stopped ??= new Promise<void>((resolve) => {
      const done = () => {
        this.#worker.terminate().then(
          () => resolve(),
          () => resolve(),
        );
      };
      this.#worker.once("message", done);
      this.#worker.once("exit", () => resolve());
      this.#worker.postMessage("stop");
    });
    return this.#stopped;
  }
}
