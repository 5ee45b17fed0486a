import type { Socket } from "node:net";
import type { ChunkLogger, ChunkLogQueue } from "./chunk-log-queue.js";
import type { DirectionWriter, TimeSource } from "./direction-writer.js";
import type { EntryAssembler } from "./entry-assembler.js";
import type { FaultOutlet, FaultStage } from "./fault-stage.js";
import type { LogWaiter, LogWriter } from "./log-writer.js";
import type { PcapConnection } from "./pcap-connection.js";
import type { Clock } from "./timestamp.js";

/** How a direction's log is written; all null when nothing is logged (`-q` without a log file). */
export interface DirectionLog {
  /** Every log this direction feeds (the relay's, a connection's own): any behind pauses it. */
  logs: LogWriter[];
  writer: DirectionWriter;
  assembler: EntryAssembler;
  /** The shared time prefix (`-t`, `-tms`, or JSON's `time`), refreshed once per chunk. */
  stamp: TimeSource | null;
}

/**
 * One direction of a relayed connection: reads `src`, writes `dst` unchanged, and logs. It pauses
 * `src` while `dst` or the log is behind and resumes when both have drained, so memory stays
 * bounded whatever the speeds. Listeners are bound once per direction; the per-chunk path
 * allocates nothing of its own.
 */
export class DirectionPump implements LogWaiter, ChunkLogger, FaultOutlet {
  /** Bytes relayed (forwarded) so far in this direction. */
  bytes = 0;
  finished = false;
  #waitingForPeer = false;
  #waitingForLog = false;
  #waitingForFaults = false;
  /** With faults configured: the stage every chunk goes through, and what the pump reports of it. */
  #faults: {
    stage: FaultStage;
    counts: Record<string, number>;
    reportDropped: () => void;
    onLimit: () => void;
  } | null = null;
  /** The source has ended and the fault stage is still forwarding what it holds. */
  #ending = false;
  readonly #logs: LogWriter[];
  /** With `-pcap`: the connection's TCP conversation, set once the server has answered. */
  capture: PcapConnection | null = null;
  /** The source ended with a FIN (not an error or a teardown). */
  #endedCleanly = false;
  readonly #assembler: EntryAssembler | null;
  readonly #stamp: TimeSource | null;
  readonly #src: Socket;
  readonly #dst: Socket;
  readonly #dir: "C" | "S";
  readonly #logging: DirectionLog | null;
  readonly #clock: Clock;
  readonly #acceptedAt: number;
  /** Where chunks wait to be logged; null when nothing is logged or captured. */
  readonly #queue: ChunkLogQueue | null;

  constructor(
    src: Socket,
    dst: Socket,
    dir: "C" | "S",
    logging: DirectionLog | null,
    /** Every log this direction feeds besides `logging`'s (the capture file). */
    extraLogs: LogWriter[],
    clock: Clock,
    acceptedAt: number,
    queue: ChunkLogQueue,
  ) {
    this.#src = src;
    this.#dst = dst;
    this.#dir = dir;
    this.#logging = logging;
    this.#clock = clock;
    this.#acceptedAt = acceptedAt;
    this.#logs = [...(logging?.logs ?? []), ...extraLogs];
    this.#assembler = logging?.assembler ?? null;
    this.#stamp = logging?.stamp ?? null;
    this.#queue = this.#logs.length > 0 ? queue : null;
  }

  /**
   * Puts a fault stage between reading and writing (only when the relay has faults: without them
   * the per-chunk path is unchanged). `onLimit` cuts the connection when `-limit` is reached.
   */
  attachFaults(
    stage: FaultStage,
    counts: Record<string, number>,
    reportDropped: () => void,
    onLimit: () => void,
  ): void {
    this.#faults = { stage, counts, reportDropped, onLimit };
  }

  start(): void {
    // Without a fault stage (no fault configured, no -control) the chunks go straight to
    // `forward`: the path is the one the relay had before faults existed, with no test per chunk.
    this.#src.on("data", this.#faults === null ? this.forward : this.#takeIntoFaults);
    this.#src.on("end", this.#onEnd);
    this.#dst.on("drain", this.#onPeerDrain);
  }

  readonly #takeIntoFaults = (chunk: Buffer): void => {
    this.#faults!.stage.take(chunk);
  };

  /**
   * Writes a chunk (or a fault stage's piece of one) to the other side and queues it for the log.
   * The chunk is handed to the peer (libuv tries the write at once) and only queued for the log:
   * formatting, capture and log writes run after every chunk read in this turn has been forwarded
   * (`ChunkLogQueue`), so the log's work is never between a read and its write.
   */
  readonly forward = (chunk: Buffer): void => {
    this.bytes += chunk.length;
    if (!this.#dst.write(chunk)) {
      this.#waitingForPeer = true;
      this.#src.pause();
    }
    const queue = this.#queue;
    if (queue === null) return;
    queue.push(this, chunk);
    const logs = this.#logs;
    for (let k = 0; k < logs.length; k++) logs[k]!.flushAtTurnEnd();
  };

  holdSource(held: boolean): void {
    this.#waitingForFaults = held;
    if (held) this.#src.pause();
    else if (!this.#waitingForPeer && !this.#waitingForLog && !this.#src.destroyed) this.#src.resume();
  }

  limitReached(): void {
    this.#faults?.onLimit();
  }

  /** Logs a chunk already forwarded (from the queue), then pauses if a log is behind. */
  logChunk(chunk: Buffer): void {
    const assembler = this.#assembler;
    if (assembler !== null) {
      this.#stamp?.refresh();
      assembler.push(chunk);
    }
    this.capture?.data(this.#dir, chunk);
    const logs = this.#logs;
    for (let k = 0; k < logs.length && !this.#waitingForLog; k++) {
      const log = logs[k]!;
      if (log.congested) {
        this.#waitingForLog = true;
        this.#src.pause();
        log.waitForDrain(this);
      }
    }
  }

  // The source ended its writing (FIN): relay the half-close and let the other direction go on.
  readonly #onEnd = (): void => {
    this.#endedCleanly = true;
    const faults = this.#faults;
    if (faults === null) {
      this.finish();
      this.#dst.end();
      return;
    }
    // What a delay or a rate still holds goes out before the FIN, and before the Finished line.
    this.#ending = true;
    faults.stage.end(() => {
      this.#ending = false;
      this.finish();
      this.#dst.end();
    });
  };

  readonly #onPeerDrain = (): void => {
    if (!this.#waitingForPeer) return;
    this.#waitingForPeer = false;
    if (!this.#waitingForLog && !this.#waitingForFaults) this.#src.resume();
  };

  resumeFromLog(): void {
    this.#waitingForLog = false;
    if (!this.#waitingForPeer && !this.#waitingForFaults && !this.#src.destroyed) this.#src.resume();
  }

  /** The direction ended (EOF, error or shutdown): log what is held and the Finished line, once. */
  finish(): void {
    if (this.finished || this.#ending) return;
    this.finished = true;
    // Chunks still queued are logged first: their entries come before the Finished line.
    this.#queue?.drain();
    this.capture?.end(this.#dir, this.#endedCleanly);
    const logging = this.#logging;
    if (logging === null) return;
    logging.assembler.end();
    logging.stamp?.refresh();
    this.#faults?.reportDropped();
    logging.writer.finished(
      this.bytes,
      rate(this.bytes, this.#clock() - this.#acceptedAt),
      this.#faults?.counts,
    );
  }
}

/** bytes / 1024 / seconds with one decimal, `0.0` when no time has passed (classic format). */
export function rate(bytes: number, elapsedMs: number): string {
  if (!(elapsedMs > 0)) return "0.0";
  return (bytes / 1024 / (elapsedMs / 1000)).toFixed(1);
}
