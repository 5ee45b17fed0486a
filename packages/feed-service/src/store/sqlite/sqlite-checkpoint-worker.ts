/**
 * The thread side of `WalCheckpointer`: its own connection to the database file, which copies the
 * write-ahead log back into the database (a PASSIVE checkpoint: it never blocks the writer or the
 * readers) some time after the writer says it committed, and when asked to stop.
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { checkpointDelay } from "./sqlite-checkpointer.js";

export interface CheckpointWorkerData {
  path: string;
  /** How long after a commit the checkpoint runs, so that one checkpoint covers several commits. */
  delayMs: number;
  /** The delay once the log holds `nearFrames` frames or more (see `checkpointDelay`). */
  shortDelayMs: number;
  nearFrames: number;
}

const data = workerData as CheckpointWorkerData;
const db = new Database(data.path, { fileMustExist: true });
db.pragma("busy_timeout = 1000");
let timer: NodeJS.Timeout | null = null;
/** The log's frames at the last checkpoint (0 before the first). */
let logFrames = 0;

function checkpoint(): void {
  timer = null;
  try {
    const [result] = db.pragma("wal_checkpoint(PASSIVE)") as Array<{ busy: number; log: number }>;
    // -1 when the checkpoint could not run (busy): the delay stays as it was.
    if (result && result.log >= 0) logFrames = result.log;
  } catch {
    // Busy or failing: the next commit schedules another, and the writer's own autocheckpoint
    // still bounds the log.
  }
}

parentPort?.on("message", (message: "committed" | "stop") => {
  if (message === "committed") {
    timer ??= setTimeout(checkpoint, checkpointDelay(logFrames, data));
    return;
  }
  if (timer) clearTimeout(timer);
  checkpoint();
  db.close();
  parentPort?.postMessage("stopped");
  parentPort?.close();
});
