/**
 * The thread side of `WalCheckpointer`: its own connection to the database file, which copies the
 * write-ahead log back into the database (a PASSIVE checkpoint: it never blocks the writer or the
 * readers) shortly after the writer says it committed, and when asked to stop.
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

export interface CheckpointWorkerData {
  path: string;
  /** How long after a commit the checkpoint runs, so that one checkpoint covers several commits. */
  delayMs: number;
}

const { path, delayMs } = workerData as CheckpointWorkerData;
const db = new Database(path, { fileMustExist: true });
db.pragma("busy_timeout = 1000");
let timer: NodeJS.Timeout | null = null;

function checkpoint(): void {
  timer = null;
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // Busy or failing: the next commit schedules another, and the writer's own autocheckpoint
    // still bounds the log.
  }
}

parentPort?.on("message", (message: "committed" | "stop") => {
  if (message === "committed") {
    timer ??= setTimeout(checkpoint, delayMs);
    return;
  }
  if (timer) clearTimeout(timer);
  checkpoint();
  db.close();
  parentPort?.postMessage("stopped");
  parentPort?.close();
});
