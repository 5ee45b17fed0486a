/**
 * serve's warm-up, around a store whose warm-up is slow: it reports progress and what it read, a
 * failure only costs the warm-up, and a stop during it ends it early without listening.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { WarmProgress, WarmReport } from "../store/cache-warm.js";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { serveStore } from "./serve-command.js";

function capture() {
  let out = "";
  let err = "";
  return {
    output: {
      out: (text: string) => {
        out += text;
      },
      err: (text: string) => {
        err += text;
      },
    },
    text: () => ({ out, err }),
  };
}

async function memoryStore(warm: (progress?: WarmProgress) => Promise<WarmReport>) {
  const store = await openStore(":memory:");
  return Object.assign(store, { warmCache: warm });
}

test("a stop during the warm-up ends it at the next step, and serve never listens", async () => {
  let steps = 0;
  const store = await memoryStore(async (progress) => {
    for (let i = 1; i <= 200; i++) {
      await sleep(10);
      steps = i;
      progress?.(i * 2 ** 20, 200 * 2 ** 20);
    }
    return { bytes: 200 * 2 ** 20 };
  });
  const { output, text } = capture();
  const stopSignal = sleep(100).then(() => "SIGTERM");
  const code = await serveStore(
    store,
    { port: 0, host: "127.0.0.1", ingest: false, warm: true },
    {
      env: {},
      output,
      stopSignal,
    },
  );
  assert.equal(code, 0);
  assert.ok(steps < 30, `the warm-up went on for ${steps} steps after the stop`);
  assert.match(text().out, /feed-service: SIGTERM, stopping before listening\n/);
  assert.doesNotMatch(text().out, /listening on|into memory/);
});

/** Runs serve with the warm-up until it listens, then stops it; what it printed. */
async function serveUntilListening(store: Store): Promise<() => { out: string; err: string }> {
  const { output, text } = capture();
  let stop!: (signal: string) => void;
  const stopSignal = new Promise<string>((resolve) => {
    stop = resolve;
  });
  const settings = { port: 0, host: "127.0.0.1", ingest: false, warm: true };
  const running = serveStore(store, settings, { env: {}, output, stopSignal });
  while (!/listening on/.test(text().out)) await sleep(10);
  stop("SIGINT");
  assert.equal(await running, 0);
  return text;
}

test("a failed warm-up is reported on stderr and serve still starts", async () => {
  const store = await memoryStore(async () => {
    throw new Error("disk on fire");
  });
  const text = await serveUntilListening(store);
  assert.equal(text().err, "feed-service: could not warm the database (disk on fire); serving anyway\n");
});

test("a warm-up that takes a while shows progress, then what it read", async () => {
  const store = await memoryStore(async (progress) => {
    for (let i = 1; i <= 5; i++) {
      await sleep(600);
      progress?.(i * 100 * 2 ** 20, 500 * 2 ** 20);
    }
    return { bytes: 500 * 2 ** 20 };
  });
  const text = await serveUntilListening(store);
  assert.match(text().out, /feed-service: warming the database: (3|4)00 MB of 500 MB\n/);
  assert.match(
    text().out,
    /feed-service: read 500 MB of the database into memory in 3\.\d s \(--no-warm skips this\)\n/,
  );
});
