// Load and memory: many connections at once with every byte checked, and a fast writer feeding
// a slow reader through a relay process whose memory must stay bounded.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, test } from "node:test";
import { startRelay } from "./relay-server.js";
import { memoryOf, spawnRelay } from "./test-support/relay-process.js";
import { freePort, listenLocal, Transcript, waitFor } from "./test-support/sockets.js";

const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), "tcp-relay-load-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Checks a received stream against `expected` chunk by chunk, without keeping it. */
function checker(expected: Buffer) {
  let at = 0;
  let mismatch = -1;
  return {
    take(chunk: Buffer) {
      if (mismatch === -1 && !chunk.equals(expected.subarray(at, at + chunk.length))) mismatch = at;
      at += chunk.length;
    },
    get received() {
      return at;
    },
    get mismatch() {
      return mismatch;
    },
  };
}

test("200 concurrent connections each send and receive 1 MiB, every byte checked", async () => {
  const CONNECTIONS = 200;
  const pool = randomBytes(2 * MiB);
  // Each connection sends its own slice of the pool, so crossed streams would not match.
  const payload = (k: number) => pool.subarray(k * 4099, k * 4099 + MiB);
  const echo = await listenLocal((s: Socket) => {
    s.on("error", () => {});
    s.pipe(s);
  });
  const relay = await startRelay({
    host: "127.0.0.1",
    remotePort: echo.port,
    localPort: 0,
    bind: "127.0.0.1",
    quiet: true,
    console: new Transcript(),
  });
  const results = await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, k) => {
      const socket = connect({ host: "127.0.0.1", port: relay.port, allowHalfOpen: true });
      const check = checker(payload(k));
      socket.on("data", (c: Buffer) => check.take(c));
      await once(socket, "connect");
      socket.end(payload(k));
      await once(socket, "end");
      socket.destroy();
      return check;
    }),
  );
  for (const [k, check] of results.entries()) {
    assert.equal(check.received, MiB, `connection ${k} got every byte back`);
    assert.equal(check.mismatch, -1, `connection ${k} got its own bytes, in order`);
  }
  assert.equal(relay.accepted, CONNECTIONS);
  await relay.close();
  echo.close();
});

// The relay runs in its own process with the text log on, so that its peak resident set
// (VmHWM) measures the relay alone: nothing may accumulate, whatever the speed difference.
test("a fast writer and a slow reader (1 GiB): the relay stays under 150 MB, every byte arrives", async (t) => {
  const SIZE = 1024 * MiB;
  const pattern = randomBytes(MiB);
  const expected = Buffer.concat([pattern, pattern]);
  let at = 0;
  let mismatch = -1;
  let readerDone: () => void;
  const finished = new Promise<void>((r) => {
    readerDone = r;
  });
  const slowReader = await listenLocal((s: Socket) => {
    // Reads in bursts of 20 ms with 20 ms pauses: about half the speed the writer could go.
    const cycle = setInterval(() => (s.isPaused() ? s.resume() : s.pause()), 20);
    s.on("data", (c: Buffer) => {
      const off = at % MiB;
      if (mismatch === -1 && !c.equals(expected.subarray(off, off + c.length))) mismatch = at;
      at += c.length;
    });
    s.on("end", () => {
      clearInterval(cycle);
      s.end();
      readerDone();
    });
  });
  const port = await freePort();
  const logFile = join(dir, "slow.log");
  const relay = spawnRelay([
    "127.0.0.1",
    String(slowReader.port),
    String(port),
    "-q",
    "-logfile",
    logFile,
    "-bind",
    "127.0.0.1",
  ]);
  await waitFor(() => relay.stdout().includes("starting proxy"), "the relay to start", 20_000);
  const writer = connect({ host: "127.0.0.1", port, allowHalfOpen: true });
  await once(writer, "connect");
  let sent = 0;
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memoryOf(relay.child.pid!).rss);
  }, 50);
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (sent < SIZE) {
        sent += MiB;
        if (!writer.write(pattern)) return;
      }
      writer.end();
      resolve();
    };
    writer.on("drain", pump);
    pump();
  });
  await finished;
  clearInterval(sampler);
  const { peak: hwm } = memoryOf(relay.child.pid!);
  writer.destroy();
  relay.child.kill("SIGTERM");
  assert.equal(await relay.exited, 0);
  slowReader.close();
  t.diagnostic(`relay peak RSS ${hwm.toFixed(1)} MiB`);
  assert.equal(at, SIZE, "every byte arrived");
  assert.equal(mismatch, -1, "in order and unchanged");
  assert.ok(statSync(logFile).size > SIZE, "the whole stream was logged");
  assert.ok(
    hwm < 150,
    `relay peak RSS ${hwm.toFixed(1)} MiB (sampled peak ${peak.toFixed(1)} MiB) must stay under 150`,
  );
});

test("a console that cannot keep up slows the relay down; no entry is lost, memory stays bounded", async (t) => {
  const SIZE = 8 * MiB;
  let maxQueued = 0;
  let logged = 0;
  // A console that takes 1 ms per write: far slower than the relay can format.
  const slowConsole = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _e, done) {
      logged += chunk.length;
      maxQueued = Math.max(maxQueued, slowConsole.writableLength);
      setTimeout(done, 1);
    },
  });
  const lines = Buffer.from(`${"x".repeat(79)}\n`.repeat(SIZE / 80));
  const sink = await listenLocal((s: Socket) => {
    s.resume();
    s.on("end", () => s.end());
  });
  const relay = await startRelay({
    host: "127.0.0.1",
    remotePort: sink.port,
    localPort: 0,
    bind: "127.0.0.1",
    console: slowConsole,
    logHighWaterMark: 256 * 1024,
  });
  const client = connect({ host: "127.0.0.1", port: relay.port, allowHalfOpen: true });
  await once(client, "connect");
  client.end(lines);
  client.resume();
  await once(client, "end");
  client.destroy();
  await relay.close();
  sink.close();
  const entries = lines.length / 80;
  // "C-0-#000000 -> [" (16, 17 past a million) + 79 + "]\n", plus start-up and Finished lines.
  t.diagnostic(`console queue peaked at ${maxQueued} bytes`);
  assert.ok(logged > entries * 97, `the whole log reached the console (${logged} bytes)`);
  // Past the mark: at most the batch and the formatted chunk in flight when the relay paused.
  assert.ok(maxQueued < 512 * 1024, `the console queue stayed bounded (${maxQueued} bytes)`);
});
