// The built command line (bin/tcp-relay.js over dist/), as a user runs it: the first SIGTERM or
// Ctrl-C stops it cleanly with exit 0, a port in use exits 1 at once, and `npx tcp-relay` works
// from a clone. Needs the build (`npx tsc -b`, which `npm ci` runs).
import assert from "node:assert/strict";
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { collectedOutput } from "./test-support/relay-process.js";
import { dial, freePort, listenLocal, waitFor } from "./test-support/sockets.js";

const bin = fileURLToPath(new URL("../bin/tcp-relay.js", import.meta.url));
const root = fileURLToPath(new URL("../../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "tcp-relay-bin-"));
after(() => rmSync(dir, { recursive: true, force: true }));

before(() => {
  const dist = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
  assert.ok(existsSync(dist), `${dist} is missing: build first (npx tsc -b)`);
});

function startBin(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const output = collectedOutput(child);
  const started = performance.now();
  const exited = once(child, "exit").then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as string | null,
    ms: performance.now() - started,
    at: performance.now(),
  }));
  return { child, exited, ...output };
}

test("a local port already in use: one clear line, exit 1 at once (also with -bind)", async () => {
  const busy = await listenLocal(() => {});
  try {
    for (const extra of [[], ["-bind", "127.0.0.1"]]) {
      const p = startBin(["127.0.0.1", "80", String(busy.port), ...extra]);
      const r = await p.exited;
      assert.equal(r.code, 1);
      assert.ok(r.ms < 5000, `exited after ${r.ms.toFixed(0)} ms`);
      assert.match(p.stderr(), /^tcp-relay: local (127\.0\.0\.1 )?port \d+ is already in use\n$/);
      assert.equal(p.stdout(), "");
    }
    const free = await freePort();
    const p = startBin([
      "127.0.0.1",
      "80",
      String(free),
      "-bind",
      "127.0.0.1",
      "-control",
      String(busy.port),
    ]);
    const r = await p.exited;
    assert.equal(r.code, 1);
    assert.equal(p.stderr(), `tcp-relay: control port ${busy.port} is already in use\n`);
  } finally {
    busy.close();
  }
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`the first ${signal} cuts held and open connections, writes their lines, flushes the log, exits 0`, async () => {
    const server = await listenLocal((s: Socket) => {
      s.on("error", () => {});
      s.write("held by the delay\n");
    });
    const port = await freePort();
    const logFile = join(dir, `${signal}.log`);
    const p = startBin([
      "127.0.0.1",
      String(server.port),
      String(port),
      "-bind",
      "127.0.0.1",
      "-logfile",
      logFile,
      "-delay",
      "s2c:60000",
    ]);
    await waitFor(() => p.stdout().includes("using logfile"), "the relay to start", 20_000);
    const clients = await Promise.all([dial(port), dial(port)]);
    for (const c of clients) {
      c.on("error", () => {});
      c.write("a request\n");
    }
    await waitFor(() => (p.stdout().match(/F-\d-s2c-delay/g)?.length ?? 0) === 2, "both held");
    const killedAt = performance.now();
    p.child.kill(signal);
    const r = await p.exited;
    server.close();
    for (const c of clients) c.destroy();
    assert.deepEqual({ code: r.code, signal: r.signal }, { code: 0, signal: null });
    assert.ok(r.at - killedAt < 3000, `stopped ${(r.at - killedAt).toFixed(0)} ms after the signal`);
    const log = readFileSync(logFile, "utf8");
    for (const n of [0, 1]) {
      assert.match(log, new RegExp(`^C-${n}-Finished: 10 bytes`, "m"));
      assert.match(log, new RegExp(`^S-${n}-Finished: 0 bytes`, "m"));
      assert.match(log, new RegExp(`^F-${n}-s2c-delay 60000 ms: dropped 18 bytes from #000000 on$`, "m"));
    }
    assert.equal(p.stderr(), "");
  });
}

test("SIGTERM while -pcap waits for its FIFO's reader still ends the relay at once with exit 0", async () => {
  const fifo = join(dir, "nobody-reads.fifo");
  execFileSync("mkfifo", [fifo]);
  const port = await freePort();
  const p = startBin(["127.0.0.1", "80", String(port), "-bind", "127.0.0.1", "-pcap", fifo]);
  await waitFor(
    () => p.stderr().includes("waiting for a reader"),
    "the relay to wait for the reader",
    20_000,
  );
  assert.equal(p.stderr(), `tcp-relay: waiting for a reader to open the FIFO ${fifo} (-pcap)\n`);
  assert.equal(p.stdout(), "", "not started: no reader yet");
  const killedAt = performance.now();
  p.child.kill("SIGTERM");
  const r = await p.exited;
  assert.equal(r.code, 0);
  assert.ok(r.at - killedAt < 3000, `stopped ${(r.at - killedAt).toFixed(0)} ms after the signal`);
});

test("SIGUSR2 writes the HAR file of the exchanges so far; the relay goes on", async () => {
  const { createServer } = await import("node:http");
  const backend = createServer((_req, res) => res.end("ok"));
  backend.listen(0, "127.0.0.1");
  await once(backend, "listening");
  const backendPort = (backend.address() as { port: number }).port;
  const port = await freePort();
  const harFile = join(dir, "usr2.har");
  const p = startBin([
    "127.0.0.1",
    String(backendPort),
    String(port),
    "-bind",
    "127.0.0.1",
    "-http",
    "-har",
    harFile,
  ]);
  try {
    await waitFor(() => p.stdout().includes("starting proxy"), "the relay to start", 20_000);
    const entries = () =>
      (JSON.parse(readFileSync(harFile, "utf8")) as { log: { entries: unknown[] } }).log.entries;
    assert.equal(entries().length, 0, "written empty at start-up");
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/one`)).text(), "ok");
    await waitFor(() => p.stdout().includes("H-0-#1 GET /one -> 200"), "the exchange");
    p.child.kill("SIGUSR2");
    await waitFor(() => entries().length === 1, "the HAR file to be written");
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/two`)).text(), "ok", "still relaying");
  } finally {
    p.child.kill("SIGTERM");
    assert.equal((await p.exited).code, 0);
    backend.close();
  }
  assert.equal(
    (JSON.parse(readFileSync(harFile, "utf8")) as { log: { entries: unknown[] } }).log.entries.length,
    2,
  );
});

test("from the repository, `npx tcp-relay` runs the workspace's command (as the README says)", async () => {
  const { stdout } = await new Promise<{ stdout: string }>((done, fail) =>
    execFile(
      "npx",
      ["--no-install", "tcp-relay", "--version"],
      { cwd: root, timeout: 60_000 },
      (e, stdout) => (e === null ? done({ stdout }) : fail(e)),
    ),
  );
  assert.match(stdout, /^tcp-relay \d+\.\d+\.\d+\n$/);
});
