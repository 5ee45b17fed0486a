// The thread lane with real worker threads: calls run off the calling thread, the deadline stops a
// runaway call and replaces its thread, a full queue refuses at once, a lost thread is replaced.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { threadId } from "node:worker_threads";
import { ThreadLane, type ThreadLaneOptions } from "./thread-lane.js";

// A worker speaking the lane's protocol: echo, spin (busy for N ms, as a runaway query is),
// fail (an error with a code), crash (the thread dies), thread (its thread id).
const workerCode = `
import { parentPort, threadId } from "node:worker_threads";
parentPort.on("message", ({ id, method, args }) => {
  if (method === "crash") process.exit(3);
  if (method === "fail") return parentPort.postMessage({ id, ok: false, code: "FEED_NOT_FOUND", message: "No post has id 9." });
  if (method === "spin") { const end = Date.now() + args[0]; while (Date.now() < end); }
  parentPort.postMessage({ id, ok: true, value: method === "thread" ? threadId : args[0] });
});`;
const entry = new URL(`data:text/javascript,${encodeURIComponent(workerCode)}`);

class Coded extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function lane(overrides: Partial<ThreadLaneOptions> = {}): ThreadLane {
  return new ThreadLane({
    entry,
    threads: 1,
    timeoutMs: 5000,
    maxQueued: 8,
    timeoutError: () => new Coded("TIMEOUT", "past the deadline"),
    overloadError: () => new Coded("BUSY", "queue full"),
    workerError: (reply) => new Coded(reply.code ?? "LOST", reply.message),
    ...overrides,
  });
}

/**
 * The call's answer once the lane has a thread again: a replacement thread starts within the
 * deadline on an idle machine, but a loaded one may take longer, and the deadline counts the wait.
 */
async function eventually(call: () => Promise<unknown>, attempts = 8): Promise<unknown> {
  for (let i = 1; ; i++) {
    try {
      return await call();
    } catch (error) {
      if (i >= attempts || (error as Coded).code !== "TIMEOUT") throw error;
    }
  }
}

async function rejection(promise: Promise<unknown>): Promise<Coded> {
  try {
    await promise;
  } catch (error) {
    return error as Coded;
  }
  assert.fail("expected a rejection");
}

describe("thread lane", () => {
  it("runs calls on another thread and answers each with its own value", async () => {
    const l = lane({ threads: 2 });
    try {
      const values = await Promise.all([1, 2, 3, 4, 5].map((n) => l.run("echo", [{ n }])));
      assert.deepEqual(
        values,
        [1, 2, 3, 4, 5].map((n) => ({ n })),
      );
      const thread = (await l.run("thread", [])) as number;
      assert.notEqual(thread, threadId);
      assert.equal((await rejection(l.run("fail", []))).code, "FEED_NOT_FOUND");
    } finally {
      await l.close();
    }
  });

  it("keeps the calling thread free while a call runs", async () => {
    const l = lane();
    try {
      await l.run("echo", [0]); // the thread is up
      const spinning = l.run("spin", [800]);
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const late = performance.now() - started - 20;
      assert.ok(late < 300, `a 20 ms timer fired ${late.toFixed(0)} ms late while the lane was busy`);
      assert.equal(await spinning, 800);
    } finally {
      await l.close();
    }
  });

  it("stops a call at the deadline, replaces its thread, and answers the next call", async () => {
    // Long enough for a new thread to start on a loaded machine: the deadline covers the wait too.
    const l = lane({ timeoutMs: 1500 });
    try {
      const first = (await l.run("thread", [])) as number;
      const started = performance.now();
      const error = await rejection(l.run("spin", [60_000]));
      const waited = performance.now() - started;
      assert.equal(error.code, "TIMEOUT");
      assert.ok(waited >= 1490 && waited < 6000, `answered after ${waited.toFixed(0)} ms`);
      const next = (await eventually(() => l.run("thread", []))) as number;
      assert.notEqual(next, first, "the runaway thread was replaced");
      assert.ok(l.stats.timedOut >= 1);
      assert.equal(l.stats.replaced, 1);
    } finally {
      await l.close();
    }
  });

  it("times out a call that waited in the queue for the whole deadline", async () => {
    const l = lane({ timeoutMs: 1500 });
    try {
      await l.run("echo", [0]);
      const running = rejection(l.run("spin", [60_000]));
      const waiting = rejection(l.run("echo", ["never"]));
      assert.equal((await waiting).code, "TIMEOUT");
      assert.equal((await running).code, "TIMEOUT");
      assert.equal(l.stats.queued, 0);
      assert.equal(await eventually(() => l.run("echo", ["after"])), "after");
    } finally {
      await l.close();
    }
  });

  it("refuses a call at once when the queue is full, and serves the queued ones", async () => {
    const l = lane({ maxQueued: 2 });
    try {
      await l.run("echo", [0]);
      const running = l.run("spin", [600]);
      const queued = [l.run("echo", ["a"]), l.run("echo", ["b"])];
      const started = performance.now();
      const refused = await rejection(l.run("echo", ["c"]));
      assert.equal(refused.code, "BUSY");
      assert.ok(performance.now() - started < 200, "the refusal did not wait for the running call");
      assert.equal(l.stats.shed, 1);
      assert.deepEqual(await Promise.all([running, ...queued]), [600, "a", "b"]);
    } finally {
      await l.close();
    }
  });

  it("fails the call of a thread that dies and replaces the thread", async () => {
    const l = lane();
    try {
      const error = await rejection(l.run("crash", []));
      assert.equal(error.code, "LOST");
      assert.equal(await l.run("echo", ["still here"]), "still here");
      assert.equal(l.stats.replaced, 1);
    } finally {
      await l.close();
    }
  });

  it("is ready once each first thread has said so, and not before", async () => {
    // The worker sets up for 300 ms (as a connection open and schema read do), then says ready.
    const slowStart = new URL(
      `data:text/javascript,${encodeURIComponent(`
import { parentPort } from "node:worker_threads";
const end = Date.now() + 300; while (Date.now() < end);
globalThis.setUp = true;
parentPort.postMessage({ ready: true });
parentPort.on("message", ({ id }) => parentPort.postMessage({ id, ok: true, value: globalThis.setUp }));`)}`,
    );
    const l = lane({ entry: slowStart, threads: 2 });
    try {
      const started = performance.now();
      await l.ready();
      assert.ok(performance.now() - started >= 250, "ready() waited for the set-up");
      assert.deepEqual(await Promise.all([l.run("x", []), l.run("x", [])]), [true, true]);
    } finally {
      await l.close();
    }
  });

  it("is ready, without hanging, when a first thread dies before saying so", async () => {
    const dies = new URL(`data:text/javascript,${encodeURIComponent("process.exit(4);")}`);
    const l = lane({ entry: dies });
    // The lane's threads and timers do not hold the process open (a server's socket does): this does.
    const keepAlive = setInterval(() => {}, 1000);
    try {
      await l.ready();
      assert.ok(l.stats.replaced >= 1, "the lost first thread was counted");
    } finally {
      clearInterval(keepAlive);
      await l.close();
    }
  });

  it("refuses calls after close", async () => {
    const l = lane();
    await l.close();
    assert.equal((await rejection(l.run("echo", [1]))).code, "LOST");
  });
});

describe("thread priority", () => {
  it("lowers the nice value of the calling thread only, where the platform has per-thread nice", async () => {
    const { lowerThisThreadPriority } = await import("./thread-priority.js");
    const { getPriority } = await import("node:os");
    const code = `
      import { parentPort, workerData } from "node:worker_threads";
      import { readFileSync } from "node:fs";
      const { register } = await import(workerData.tsx);
      register();
      const { lowerThisThreadPriority } = await import(workerData.module);
      const changed = lowerThisThreadPriority(7);
      // Field 19 of /proc/thread-self/stat is the thread's nice value.
      const stat = readFileSync("/proc/thread-self/stat", "utf8");
      const nice = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
      parentPort.postMessage({ changed, nice });`;
    if (process.platform !== "linux") {
      assert.equal(typeof lowerThisThreadPriority, "function");
      return;
    }
    const { Worker } = await import("node:worker_threads");
    const before = getPriority();
    // The tests run from the TypeScript sources: the worker registers tsx before importing them.
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), {
      workerData: {
        tsx: import.meta.resolve("tsx/esm/api"),
        module: new URL("./thread-priority.ts", import.meta.url).href,
      },
    });
    const reply = await new Promise<{ changed: boolean; nice: number }>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    await worker.terminate();
    assert.deepEqual(reply, { changed: true, nice: 7 });
    assert.equal(getPriority(), before, "the calling thread keeps its priority");
  });
});
