// Faults on purpose seen by real clients: curl and Node's fetch through each fault, against real
// servers on 127.0.0.1, with the log's records checked alongside.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { parseFault } from "./fault-spec.js";
import { type RelayOptions, startRelay } from "./relay-server.js";
import { missingTool, toolAvailable } from "./test-support/external-tool.js";
import { dial, ended, listenLocal, Transcript, waitFor } from "./test-support/sockets.js";

const dir = mkdtempSync(join(tmpdir(), "tcp-relay-faults-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const curlAvailable = toolAvailable("curl", ["--version"]);

/** curl's exit code and output (it exits non-zero on purpose in most of these tests). */
function curl(args: string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  return new Promise((done) => {
    execFile(
      "curl",
      ["-sS", "--noproxy", "*", ...args],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        done({ code, stdout, stderr, ms: performance.now() - started });
      },
    );
  });
}

/** An HTTP server on 127.0.0.1 whose handler is given. */
async function httpServer(
  handler: Parameters<typeof createHttpServer>[1],
): Promise<HttpServer & { port: number }> {
  const server = createHttpServer(handler);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return Object.assign(server, { port: (server.address() as AddressInfo).port });
}

async function relayWith(port: number, faults: string[][], extra: Partial<RelayOptions> = {}) {
  const console = new Transcript();
  const relay = await startRelay({
    host: "127.0.0.1",
    remotePort: port,
    localPort: 0,
    bind: "127.0.0.1",
    console,
    faults: faults.map(([option, value]) => parseFault(option!, value)),
    ...extra,
  });
  return { relay, console, url: `http://127.0.0.1:${relay.port}` };
}

test("-delay c2s:200 adds about 200 ms to each exchange (fetch and curl), and says so in -http", async (t) => {
  const server = await httpServer((_req, res) => res.end("pong"));
  t.after(() => server.close());
  const plain = await relayWith(server.port, []);
  const slow = await relayWith(server.port, [["-delay", "c2s:200"]], { http: true });
  t.after(() => Promise.all([plain.relay.close(), slow.relay.close()]));
  // Each exchange on a fresh connection: the request's chunk is held once.
  const time = async (url: string) => {
    const started = performance.now();
    const res = await fetch(`${url}/ping`, { headers: { connection: "close" } });
    assert.equal(await res.text(), "pong");
    return performance.now() - started;
  };
  // The fastest of a few exchanges each way, taken in turn (slow, plain, slow, plain, ...): other
  // work on the machine only ever makes an exchange slower, and taking turns spreads both sets
  // over the same stretch of time (the plain five, taken one after the other in a moment, were
  // once all slowed by a busy spell, and the delay looked 22 ms short).
  const added = async (exchange: (url: string) => Promise<number>) => {
    let slowBest = Number.POSITIVE_INFINITY;
    let plainBest = Number.POSITIVE_INFINITY;
    for (let k = 0; k < 5; k++) {
      slowBest = Math.min(slowBest, await exchange(slow.url));
      plainBest = Math.min(plainBest, await exchange(plain.url));
    }
    return slowBest - plainBest;
  };
  // A first exchange on both (connection set-up, JIT) is not counted.
  await time(slow.url);
  await time(plain.url);
  const fetchAdded = await added(time);
  assert.ok(fetchAdded >= 190 && fetchAdded <= 300, `fetch: the delay added ${fetchAdded.toFixed(1)} ms`);
  if (!(await curlAvailable)) return missingTool(t, "curl", "Debian's curl");
  // curl's own clock (time_total), so that starting the process, which a loaded machine slows
  // by tens of milliseconds either way, is not part of the figure.
  const curlTime = async (url: string) => {
    const r = await curl(["-w", "\n%{time_total}", `${url}/ping`]);
    const [body, seconds] = r.stdout.split("\n");
    assert.equal(body, "pong");
    return Number(seconds) * 1000;
  };
  const curlAdded = await added(curlTime);
  assert.ok(curlAdded >= 190 && curlAdded <= 300, `curl: the delay added ${curlAdded.toFixed(1)} ms`);
  await slow.relay.close();
  const log = slow.console.text();
  assert.match(log, /^F-0-c2s-delay 200 ms$/m);
  assert.match(log, /^H-6-#1 GET \/ping -> 200 \(.*\) \[faults: delay_c2s\]$/m);
  // 1 + 5 exchanges by fetch and 5 by curl, each on a connection of its own.
  assert.equal(log.match(/^F-/gm)?.length, 11, "one fault line per connection");
});

test("-rate s2c:100 moves 1 MiB in about 10 s (curl); the bytes arrive unchanged", async (t) => {
  if (!(await curlAvailable)) return missingTool(t, "curl", "Debian's curl");
  const body = randomBytes(1024 * 1024);
  const server = await httpServer((_req, res) => res.end(body));
  t.after(() => server.close());
  const { relay, console, url } = await relayWith(server.port, [["-rate", "s2c:100"]], { json: true });
  t.after(() => relay.close());
  const file = join(dir, "rate.bin");
  const r = await curl(["-o", file, `${url}/mib`]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(readFileSync(file).equals(body), "the body is byte for byte the server's");
  // Never faster than the rate (10 s, less a first burst); slower only by what a busy machine adds
  // to curl's and the relay's turns, well short of a limiter that halved the rate (20 s).
  assert.ok(r.ms >= 9000 && r.ms <= 14000, `1 MiB at 100 KiB/s took ${r.ms.toFixed(0)} ms`);
  await relay.close();
  const lines = console
    .text()
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const fault = lines.find((l) => l.type === "fault");
  assert.deepEqual(
    { conn: fault?.conn, dir: fault?.dir, fault: fault?.fault, kibPerSecond: fault?.kibPerSecond },
    { conn: 0, dir: "s2c", fault: "rate", kibPerSecond: 100 },
  );
  const finished = lines.find((l) => l.type === "finished" && l.dir === "S") as { faults?: { rate: number } };
  assert.ok((finished.faults?.rate ?? 0) > 0, "the Finished object counts the rate's acts");
});

/** A server that answers any request with a head and `size` body bytes, as raw bytes. */
async function rawHttpServer(size: number) {
  const head = `HTTP/1.1 200 OK\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n`;
  const body = randomBytes(size);
  const server = await listenLocal((s: Socket) => {
    s.on("error", () => {});
    s.once("data", () => s.end(Buffer.concat([Buffer.from(head, "latin1"), body])));
  });
  return { server, head, body };
}

test("-limit s2c:10000 cuts at exactly 10,000 bytes (curl, a raw socket), and the log says what was dropped", async (t) => {
  const { server, head, body } = await rawHttpServer(50_000);
  t.after(() => server.close());
  const { relay, console, url } = await relayWith(server.port, [["-limit", "s2c:10000"]]);
  t.after(() => relay.close());
  const client = await dial(relay.port);
  client.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  await ended(client);
  assert.equal(client.received().length, 10_000);
  assert.ok(client.received().equals(Buffer.concat([Buffer.from(head, "latin1"), body]).subarray(0, 10_000)));
  if (!(await curlAvailable)) return missingTool(t, "curl", "Debian's curl");
  const file = join(dir, "limit.bin");
  const r = await curl(["-o", file, `${url}/big`]);
  assert.equal(r.code, 18, `curl: partial file (exit 18); got ${r.code} ${r.stderr}`);
  assert.equal(readFileSync(file).length, 10_000 - head.length);
  await relay.close();
  const log = console.text();
  assert.match(log, /^F-0-s2c-limit 10000 bytes$/m);
  assert.match(log, /^S-0-Finished: 10000 bytes/m);
  assert.match(log, /^S-1-Finished: 10000 bytes/m);
  // The server's 50,000-byte body in one or more chunks: the rest past the limit is dropped.
  assert.match(log, /^F-0-s2c-limit 10000 bytes: dropped \d+ bytes from #010000 on$/m);
});

test("-reset gives fetch and curl ECONNRESET while they wait for the answer", async (t) => {
  const server = await httpServer((_req, res) => {
    setTimeout(() => res.end("too late"), 2000).unref();
  });
  t.after(() => server.closeAllConnections());
  t.after(() => server.close());
  const { relay, console, url } = await relayWith(server.port, [["-reset", "s2c:150"]]);
  t.after(() => relay.close());
  const started = performance.now();
  const error = await fetch(`${url}/slow`).then(
    () => null,
    (e: Error & { cause?: { code?: string } }) => e,
  );
  assert.equal(error?.cause?.code, "ECONNRESET");
  assert.ok(performance.now() - started >= 140, "not before the reset's time");
  if (!(await curlAvailable)) return missingTool(t, "curl", "Debian's curl");
  const r = await curl([`${url}/slow`]);
  assert.equal(r.code, 56, `curl: failure receiving (exit 56); got ${r.code}`);
  assert.match(r.stderr, /reset by peer/i);
  await relay.close();
  assert.match(console.text(), /^F-0-s2c-reset after 150 ms$/m);
  assert.match(console.text(), /^F-1-s2c-reset after 150 ms$/m);
});

test("-blackhole s2c makes fetch and curl time out; the log shows what was dropped", async (t) => {
  const server = await httpServer((_req, res) => res.end("never seen"));
  t.after(() => server.closeAllConnections());
  t.after(() => server.close());
  const { relay, console, url } = await relayWith(server.port, [["-blackhole", "s2c"]]);
  t.after(() => relay.close());
  const error = await fetch(`${url}/`, { signal: AbortSignal.timeout(500) }).then(
    () => null,
    (e: Error) => e,
  );
  assert.equal(error?.name, "TimeoutError");
  if (!(await curlAvailable)) return missingTool(t, "curl", "Debian's curl");
  const r = await curl(["--max-time", "0.5", `${url}/`]);
  assert.equal(r.code, 28, `curl: operation timed out (exit 28); got ${r.code}`);
  await waitFor(() => relay.accepted >= 2, "both connections");
  await relay.close();
  const log = console.text();
  assert.match(log, /^F-0-s2c-blackhole after 0 ms$/m);
  // fetch's and curl's connections (their numbers depend on the clients' own connections).
  assert.ok(
    (log.match(/^F-\d+-s2c-blackhole after 0 ms: dropped \d+ bytes from #000000 on$/gm)?.length ?? 0) >= 2,
    log,
  );
  assert.doesNotMatch(log, /^S-\d+-#/m, "nothing from the server reached a client");
});

test("-refuse @2: every second connection is closed before any upstream connection (curl, fetch)", async (t) => {
  let upstream = 0;
  const server = await httpServer((_req, res) => res.end("ok"));
  server.on("connection", () => upstream++);
  t.after(() => server.close());
  const { relay, console, url } = await relayWith(server.port, [["-refuse", "@2"]]);
  t.after(() => relay.close());
  const get = () =>
    fetch(url, { headers: { connection: "close" } }).then(
      (r) => r.text(),
      (e: Error & { cause?: { code?: string } }) => `error ${e.cause?.code ?? e.message}`,
    );
  assert.equal(await get(), "ok");
  assert.match(await get(), /^error (ECONNRESET|UND_ERR_SOCKET)/);
  assert.equal(await get(), "ok");
  assert.equal(upstream, 2);
  await relay.close();
  assert.match(console.text(), /^F-1-s2c-refuse @2$/m);
  assert.doesNotMatch(console.text(), /^[CS]-1-Finished/m);
  if (!(await curlAvailable)) return missingTool(t, "curl", "Debian's curl");
});

test("delay, slice and rate together keep every byte, in order, both ways (echo server)", async () => {
  const server = await listenLocal((s: Socket) => {
    s.on("error", () => {});
    s.pipe(s);
  });
  const { relay, console } = await relayWith(
    server.port,
    [
      ["-delay", "c2s:5±5"],
      ["-slice", "s2c:1000±500/1"],
      ["-rate", "both:4096"],
    ],
    { quiet: false, binary: true },
  );
  const data = randomBytes(600_000);
  const client = await dial(relay.port);
  for (let k = 0; k < data.length; k += 7000) client.write(data.subarray(k, k + 7000));
  client.end();
  await ended(client);
  assert.ok(client.received().equals(data), "what came back is what was sent");
  await relay.close();
  server.close();
  assert.match(console.text(), /^C-0-Finished: 600000 bytes/m);
  assert.match(console.text(), /^S-0-Finished: 600000 bytes/m);
});
