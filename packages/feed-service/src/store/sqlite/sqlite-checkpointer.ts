/**
 * Checkpoints of the SQLite write-ahead log on their own thread. In WAL mode with
 * synchronous=NORMAL a commit only appends to the log; the checkpoint, which copies the log into
 * the database file and waits for the disk (fsync), is what costs. By default SQLite runs it inside
 * the commit that fills the log past 1,000 pages, on the writing thread
 * (https://sqlite.org/wal.html): during ingest that is every few feeds, and the ingest thread waits
 * for it (figures in bench/NOTES.md). Here a worker thread with its own connection runs a PASSIVE
 * checkpoint shortly after commits, and the writer's own autocheckpoint stays as a
 * backstop at a larger size, for a worker that falls behind.
 */
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { workerEntryUrl } from "../../threads/worker-entry-url.js";
import type { CheckpointWorkerData } from "./sqlite-checkpoint-worker.js";

/** Log pages after which the writer checkpoints itself (SQLite's default is 1,000). */
export const backstopPages = 10_000;

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
  constructor(db: Database.Database, delayMs = 100) {
    db.pragma(`wal_autocheckpoint = ${backstopPages}`);
    const workerData: CheckpointWorkerData = { path: db.name, delayMs };
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
