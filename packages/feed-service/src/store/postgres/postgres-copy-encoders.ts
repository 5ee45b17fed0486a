/**
 * A few worker threads (postgres-copy-worker.ts) that encode batches of posts for COPY while the
 * copy's main thread reads the next batches and sends the encoded ones. Batches go round robin; the
 * caller keeps their order by awaiting the promises in the order it asked. A thread that fails
 * fails its batches: the copy stops (its transaction is rolled back).
 */
import { Worker } from "node:worker_threads";
import { workerEntryUrl } from "../../threads/worker-entry-url.js";
import type { Row } from "../copied-tables.js";
import type { EncodeReply, EncodeRequest } from "./postgres-copy-worker.js";

const POST_FEED = 1;

interface Pending {
  resolve: (bytes: Uint8Array) => void;
  reject: (error: Error) => void;
}

export class PostEncoders {
  readonly #workers: Worker[] = [];
  readonly #pending = new Map<number, Pending>();
  #next = 0;
  readonly #ranked: boolean;
  /** Milliseconds the threads spent encoding, summed over the threads. */
  busyMs = 0;
  /** With `ranked`, the ids of the posts encoded without their rank columns (postCopyLines). */
  readonly unranked: number[] = [];

  /**
   * `ranked`: the lines carry each post's rank columns after its vectors.
   *
   * @example const encoders = new PostEncoders(2); const bytes = await encoders.encode(rows, names);
   */
  constructor(threads: number, ranked = false) {
    this.#ranked = ranked;
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(workerEntryUrl(import.meta.url, "postgres-copy-worker"));
      worker.on("message", (reply: EncodeReply) => {
        const pending = this.#pending.get(reply.id);
        if (!pending) return;
        this.#pending.delete(reply.id);
        if (reply.ok) {
          this.busyMs += reply.ms;
          for (const id of reply.unranked) this.unranked.push(id);
          pending.resolve(reply.bytes);
        } else pending.reject(new Error(`encoding posts for COPY failed: ${reply.message}`));
      });
      const fail = (error: Error) => {
        for (const pending of this.#pending.values()) pending.reject(error);
        this.#pending.clear();
      };
      worker.on("error", fail);
      worker.on("exit", (code) => fail(new Error(`a COPY encoder thread exited with code ${code}`)));
      this.#workers.push(worker);
    }
  }

  get size(): number {
    return this.#workers.length;
  }

  /** The batch's COPY lines (postCopyLines), encoded by the next thread. */
  encode(rows: readonly Row[], feedNames: ReadonlyMap<number, string>): Promise<Uint8Array> {
    const id = this.#next++;
    const feeds = new Set(rows.map((r) => Number(r[POST_FEED])));
    const names = [...feeds].map((f) => [f, feedNames.get(f) ?? ""] as const);
    const request: EncodeRequest = { id, rows, names, ranked: this.#ranked };
    return new Promise<Uint8Array>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#workers[id % this.#workers.length]!.postMessage(request);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.terminate()));
  }
}
