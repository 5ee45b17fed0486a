/** What logs a relayed chunk after it has been forwarded: a direction of a connection. */
export interface ChunkLogger {
  logChunk(chunk: Buffer): void;
}

const INITIAL_CAPACITY = 64;
/**
 * Queued bytes at which the queue is drained at once. A socket reads up to 32 times per turn, so
 * a bulk transfer would otherwise queue megabytes before the log's backpressure (checked as each
 * chunk is logged) could pause it; with this, bulk chunks are logged as they are read, right
 * after being forwarded, and only small ones wait for the end of the turn.
 */
export const DRAIN_NOW_BYTES = 64 * 1024;

/**
 * The chunks forwarded in this event-loop turn and not logged yet, in the order they were read
 * (every connection, both directions). A pump writes each chunk to the other side and only queues
 * it here; the queue is drained once, in a `setImmediate` after the poll phase, so that every
 * chunk that arrived in the turn is forwarded before any is formatted, captured or written to the
 * log. The order of the log is the order of the reads, as if each chunk were logged on arrival.
 * At most `DRAIN_NOW_BYTES` (plus one chunk) wait. The two arrays are kept and reused (no
 * allocation per chunk once grown).
 *
 * @example
 * const queue = new ChunkLogQueue();
 * queue.push(pump, chunk); // pump.logChunk(chunk) runs at the end of this turn
 * queue.drain(); // or now: before a direction's Finished line
 */
export class ChunkLogQueue {
  #loggers: (ChunkLogger | undefined)[] = new Array(INITIAL_CAPACITY).fill(undefined);
  #chunks: (Buffer | undefined)[] = new Array(INITIAL_CAPACITY).fill(undefined);
  #length = 0;
  #bytes = 0;
  #scheduled = false;
  #draining = false;

  /** Chunks waiting to be logged. */
  get length(): number {
    return this.#length;
  }

  push(logger: ChunkLogger, chunk: Buffer): void {
    const k = this.#length;
    if (k === this.#chunks.length) {
      this.#loggers.push(logger);
      this.#chunks.push(chunk);
    } else {
      this.#loggers[k] = logger;
      this.#chunks[k] = chunk;
    }
    this.#length = k + 1;
    this.#bytes += chunk.length;
    if (this.#bytes >= DRAIN_NOW_BYTES) this.drain();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#onImmediate);
    }
  }

  /**
   * Logs every queued chunk now, in order. Called at the end of the turn, and before anything is
   * logged outside the queue (a Finished line) so that it comes after the entries it follows.
   */
  drain(): void {
    // A chunk queued while draining (nothing does so today) is logged by this same loop.
    if (this.#draining) return;
    this.#draining = true;
    try {
      for (let k = 0; k < this.#length; k++) {
        const logger = this.#loggers[k]!;
        const chunk = this.#chunks[k]!;
        this.#loggers[k] = undefined;
        this.#chunks[k] = undefined;
        logger.logChunk(chunk);
      }
    } finally {
      this.#length = 0;
      this.#bytes = 0;
      this.#draining = false;
    }
  }

  readonly #onImmediate = (): void => {
    this.#scheduled = false;
    this.drain();
  };
}
