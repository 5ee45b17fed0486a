/**
 * A lane of worker threads that run calls one at a time each, with a deadline per call and a
 * bounded queue (design.md, "one request thread that never waits on a query"):
 * - a call waits in the queue until a thread is free; when `maxQueued` calls wait already, a new
 *   one is refused at once (load shedding) instead of queueing without bound;
 * - a call still waiting or running `timeoutMs` after it was submitted is answered with the
 *   timeout error; a running one has its thread terminated and replaced, so that the lane keeps
 *   its size. (A thread inside a native call stops when that call returns to JavaScript; while it
 *   winds down it counts against the lane, so timeouts can never multiply the threads.)
 * - a thread that dies fails its call and is replaced; one that dies before answering anything
 *   is restarted after a growing pause (a database that cannot be opened must not spin).
 *
 * The protocol with the worker: the lane posts `{ id, method, args }`; the worker answers
 * `{ id, ok: true, value }` or `{ id, ok: false, code, message }`. A worker that has work to do
 * before its first call (opening a connection) posts `{ ready: true }` when done, and `ready()`
 * waits for that from the lane's first threads, so that a server can start answering only once its
 * query threads can answer (the first calls after start would otherwise wait for threads to boot).
 */
import { Worker } from "node:worker_threads";

export interface ThreadLaneOptions {
  /** The worker module (see workerEntryUrl). */
  readonly entry: URL;
  readonly workerData?: unknown;
  readonly threads: number;
  readonly timeoutMs: number;
  readonly maxQueued: number;
  /** The error a call gets when it passes the deadline. */
  readonly timeoutError: () => Error;
  /** The error a call gets when the queue is full. */
  readonly overloadError: () => Error;
  /** The error a call gets when its thread dies, or for an error the worker reported by code. */
  readonly workerError: (reply: { code?: string; message: string }) => Error;
}

export interface ThreadLaneStats {
  readonly threads: number;
  readonly busy: number;
  readonly queued: number;
  /** Threads terminated at a deadline or lost, since the lane started. */
  readonly replaced: number;
  readonly timedOut: number;
  readonly shed: number;
}

export type WorkerReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; code?: string; message: string };

/** What a worker posts once it has finished setting up (see `ThreadLane.ready`). */
export const workerReadyMessage = { ready: true } as const;

interface Call {
  readonly id: number;
  readonly method: string;
  readonly args: readonly unknown[];
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
  slot: Slot | undefined;
}

interface Slot {
  worker: Worker | undefined;
  call: Call | undefined;
  answered: number;
}

const MAX_RESTART_PAUSE_MS = 5000;

export class ThreadLane {
  readonly #options: ThreadLaneOptions;
  readonly #slots: Slot[] = [];
  readonly #queue: Call[] = [];
  #nextId = 1;
  #closed = false;
  /** Terminated threads that have not exited yet. */
  #windingDown = 0;
  #failedStarts = 0;
  /** One promise per first thread: settled when it posts it is ready, or when it exits first. */
  readonly #firstThreads: Promise<void>[] = [];
  #replaced = 0;
  #timedOut = 0;
  #shed = 0;

  /**
   * @example
   * const lane = new ThreadLane({ entry, threads: 2, timeoutMs: 10_000, maxQueued: 64, ... });
   * const rows = await lane.run("recentPosts", [{ limit: 20, offset: 0, languageIds: null }]);
   */
  constructor(options: ThreadLaneOptions) {
    if (!Number.isInteger(options.threads) || options.threads < 1) {
      throw new RangeError("a thread lane needs at least one thread");
    }
    this.#options = options;
    for (let i = 0; i < options.threads; i++) {
      const slot: Slot = { worker: undefined, call: undefined, answered: 0 };
      this.#slots.push(slot);
      const worker = this.#start(slot);
      if (worker) {
        this.#firstThreads.push(
          new Promise<void>((resolve) => {
            const settled = () => {
              worker.off("message", onMessage);
              worker.off("exit", settled);
              resolve();
            };
            const onMessage = (message: unknown) => {
              if ((message as { ready?: unknown } | null)?.ready === true) settled();
            };
            worker.on("message", onMessage);
            worker.on("exit", settled);
          }),
        );
      }
    }
  }

  /**
   * Resolves when each of the lane's first threads has said it is ready, or has exited (a thread
   * that cannot start is the calls' business: they get the lane's errors, with restarts paced).
   */
  async ready(): Promise<void> {
    await Promise.all(this.#firstThreads);
  }

  get stats(): ThreadLaneStats {
    return {
      threads: this.#slots.length,
      busy: this.#slots.filter((s) => s.call !== undefined).length,
      queued: this.#queue.length,
      replaced: this.#replaced,
      timedOut: this.#timedOut,
      shed: this.#shed,
    };
  }

  /** Runs `method(...args)` on a free thread; rejects with the lane's errors as described above. */
  run(method: string, args: readonly unknown[]): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#options.workerError({ message: "the lane is closed" }));
    if (this.#queue.length >= this.#options.maxQueued && this.#freeSlot() === undefined) {
      this.#shed++;
      return Promise.reject(this.#options.overloadError());
    }
    return new Promise((resolve, reject) => {
      const call: Call = {
        id: this.#nextId++,
        method,
        args,
        resolve,
        reject,
        timer: undefined,
        slot: undefined,
      };
      call.timer = setTimeout(() => this.#expire(call), this.#options.timeoutMs);
      this.#queue.push(call);
      this.#dispatch();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const error = this.#options.workerError({ message: "the lane is closed" });
    for (const call of this.#queue.splice(0)) this.#settle(call, error);
    for (const slot of this.#slots) if (slot.call) this.#settle(slot.call, error);
    await Promise.all(this.#slots.map((s) => s.worker?.terminate()));
  }

  #freeSlot(): Slot | undefined {
    return this.#slots.find((s) => s.worker !== undefined && s.call === undefined);
  }

  #dispatch(): void {
    for (;;) {
      const slot = this.#freeSlot();
      const call = this.#queue[0];
      if (slot === undefined || call === undefined) return;
      this.#queue.shift();
      call.slot = slot;
      slot.call = call;
      slot.worker!.postMessage({ id: call.id, method: call.method, args: call.args });
    }
  }

  #start(slot: Slot): Worker | undefined {
    if (this.#closed) return undefined;
    const worker = new Worker(this.#options.entry, { workerData: this.#options.workerData });
    worker.unref();
    slot.worker = worker;
    slot.answered = 0;
    worker.on("message", (reply: WorkerReply) => {
      const call = slot.call;
      if (call === undefined || call.id !== reply.id) return;
      slot.answered++;
      this.#failedStarts = 0;
      slot.call = undefined;
      call.slot = undefined;
      if (reply.ok) this.#settle(call, undefined, reply.value);
      else this.#settle(call, this.#options.workerError(reply));
      this.#dispatch();
    });
    worker.on("error", () => {
      // Followed by "exit"; nothing to do until then.
    });
    worker.on("exit", () => {
      if (slot.worker !== worker) {
        this.#windingDown--;
        this.#restartWaiting();
        return;
      }
      // Lost without being asked to stop: fail its call and start another in its place.
      this.#replaced++;
      if (slot.answered === 0) this.#failedStarts++;
      slot.worker = undefined;
      const call = slot.call;
      slot.call = undefined;
      if (call) this.#settle(call, this.#options.workerError({ message: "the query thread stopped" }));
      this.#scheduleRestart(slot);
    });
    return worker;
  }

  #scheduleRestart(slot: Slot): void {
    if (this.#closed) return;
    if (this.#failedStarts === 0) {
      this.#start(slot);
      this.#dispatch();
      return;
    }
    const pause = Math.min(MAX_RESTART_PAUSE_MS, 100 * 2 ** (this.#failedStarts - 1));
    // Calls waiting meanwhile would only time out: tell them now that the store is not answering.
    for (const call of this.#queue.splice(0)) {
      this.#settle(call, this.#options.workerError({ message: "the query thread could not start" }));
    }
    setTimeout(() => {
      this.#start(slot);
      this.#dispatch();
    }, pause).unref();
  }

  /** Starts threads for slots left empty while too many terminated threads were winding down. */
  #restartWaiting(): void {
    for (const slot of this.#slots) {
      if (slot.worker === undefined && this.#windingDown < this.#slots.length && !this.#closed) {
        this.#start(slot);
      }
    }
    this.#dispatch();
  }

  #expire(call: Call): void {
    call.timer = undefined;
    this.#timedOut++;
    const slot = call.slot;
    if (slot === undefined) {
      const i = this.#queue.indexOf(call);
      if (i >= 0) this.#queue.splice(i, 1);
      this.#settle(call, this.#options.timeoutError());
      return;
    }
    // Running: the thread is stopped and replaced; its answer, if it still comes, is dropped.
    const worker = slot.worker!;
    slot.worker = undefined;
    slot.call = undefined;
    call.slot = undefined;
    this.#replaced++;
    this.#windingDown++;
    void worker.terminate();
    this.#settle(call, this.#options.timeoutError());
    if (this.#windingDown < this.#slots.length) this.#start(slot);
    this.#dispatch();
  }

  #settle(call: Call, error: Error | undefined, value?: unknown): void {
    if (call.timer !== undefined) clearTimeout(call.timer);
    call.timer = undefined;
    if (error) call.reject(error);
    else call.resolve(value);
  }
}
