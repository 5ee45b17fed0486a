#!/usr/bin/env node
// tcp-relay against its peers, all in the same run, through 127.0.0.1:
//   (a) random bytes, -q without a log file, vs socat (default options) and a bare Node pipe relay
//       (socket.pipe both ways), with the direct connection as the limit: all running at once,
//       TURNS (default 12) turns of SIZE / 4 through each in a shuffled order, the ratio to socat
//       taken within each turn (median and range reported), and each relay's MB per CPU second;
//   (b) 1 GiB of HTTP-like lines (~80 bytes) with the text log to a file, vs socat -v (log on
//       stderr redirected to a file; run on a smaller size, see the table);
//   (c) 1 GiB of random bytes with the -b (hex) log to a file, vs socat -x;
//   (e) the views: -json to a file (HTTP-like lines) beside the text log; -pcap to a file (random
//       bytes) beside the relay without a log;
//   (f) -rate c2s:<R> from 64 KiB/s to 100 MiB/s: the rate achieved over RATE_SECONDS (default 4)
//       against the one asked for (the target: within 5%);
//   (g) -pcap - into a pipe read by `cat >/dev/null`, against the same relay without a capture
//       (the target: at most 10% less throughput), both running at once, TURNS turns of SIZE / 4
//       through each in a shuffled order, the ratio taken within each turn, and the CPU per GiB of
//       the relay, the pipe's reader, the sink and the sender;
//   (d) round-trip latency of 5,000 sequential 100-byte requests (129-byte answers) per round,
//       every relay at once with the pairs interleaved: the median added to the direct round trip
//       (and the mean), the p99, and each relay's CPU and context switches per round trip,
//       tcp-relay with and without a log file, vs the bare Node relay and socat (with and without -v).
// Load generator: this script itself (Node net sockets: one sender, or one sequential ping-pong
// client); the sink/responder is a separate Node process; each relay is its own process running
// the BUILT code (run `npx tsc -b` first). (a), (d) and (g) interleave the relays compared and
// report medians and same-run ratios, because this two-core machine is shared and single runs are
// noisy.
// Environment: SIZE_MIB (default 1024), PAIRS (default 5000), ROUNDS (default 3, the rounds of
// (d)), TURNS (default 12, the turns of (a) and (g)), SECTIONS (default abcdefg), BASELINE (the bin/tcp-relay.js of another build, e.g. a `git worktree` of an
// older commit built under /tmp: (a), (d) and (e) then also run it, so before and after are
// measured in the same run window; (g) then also pipes its `-pcap -`), READER_PIPE_MIB ((g) also
// pipes the relay into a reader that first enlarges the pipe to that size, e.g. 1).
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const MiB = 1024 * 1024;
const SIZE = Number(process.env.SIZE_MIB ?? 1024) * MiB;
const SOCAT_LOG_SIZE = Math.min(SIZE, 16 * MiB);
const PAIRS = Number(process.env.PAIRS ?? 5_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
// (a): interleaved turns, a quarter of SIZE through each relay per turn.
const TURNS = Number(process.env.TURNS ?? 12);
const A_SIZE = Math.max(MiB, SIZE / 4);
const SECTIONS = process.env.SECTIONS ?? "abcdefg";
const RATE_SECONDS = Number(process.env.RATE_SECONDS ?? 4);
const relayBin = fileURLToPath(new URL("../packages/tcp-relay/bin/tcp-relay.js", import.meta.url));
const BASELINE = process.env.BASELINE;
// (g): also a reader that enlarges the pipe to this many MiB (at most /proc/sys/fs/pipe-max-size).
const READER_PIPE_MIB =
  process.env.READER_PIPE_MIB === undefined ? undefined : Number(process.env.READER_PIPE_MIB);
const work = mkdtempSync(join(tmpdir(), "tcp-relay-bench-"));
const children = new Set();

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitForPort(port) {
  for (let k = 0; k < 500; k++) {
    const ok = await new Promise((resolve) => {
      const s = connect(port, "127.0.0.1");
      s.on("connect", () => {
        s.destroy();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`nothing listens on ${port}`);
}

function start(cmd, args, options = {}) {
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", options.stderr ?? "inherit"], ...options });
  children.add(child);
  child.stdout.resume();
  return child;
}

async function stop(child) {
  if (child.exitCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
  children.delete(child);
}

const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;

/**
 * CPU seconds the process has used (all its threads, and its children once they have ended:
 * socat serves each connection in a child of its own), user and system (kernel), from /proc: on
 * this shared machine wall-clock throughput depends on the other work, CPU per byte much less.
 */
function cpuSplit(child) {
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1].split(" ");
    const ticks = (k) => Number(fields[k]) / CLOCK_TICKS;
    return { user: ticks(11) + ticks(13), system: ticks(12) + ticks(14) };
  } catch {
    return { user: Number.NaN, system: Number.NaN };
  }
}

/** Context switches of every thread of the process so far (each wake-up of the event loop or of a pool thread counts). */
function contextSwitches(child) {
  let n = 0;
  try {
    for (const task of readdirSync(`/proc/${child.pid}/task`)) {
      const status = readFileSync(`/proc/${child.pid}/task/${task}/status`, "utf8");
      for (const m of status.matchAll(/ctxt_switches:\s+(\d+)/g)) n += Number(m[1]);
    }
  } catch {
    return Number.NaN;
  }
  return n;
}

function peakRssMiB(child) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
    return m ? (Number(m[1]) / 1024).toFixed(0) : "?";
  } catch {
    return "?";
  }
}

const RESPONSE = `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 64\r\n\r\n${"r".repeat(64)}`;
// The sink counts bytes and, at the client's FIN, answers "done" (through the relay's half-close).
// The responder answers every request of REQ bytes with RES bytes.
const SINK = `
const net = require("node:net");
const s = net.createServer({ allowHalfOpen: true }, (c) => {
  let n = 0;
  c.on("data", (b) => { n += b.length; });
  c.on("end", () => c.end(String(n)));
});
s.listen(0, "127.0.0.1", () => console.log(s.address().port));`;
const RESPONDER = `
const net = require("node:net");
const res = Buffer.from(${JSON.stringify(RESPONSE)});
const s = net.createServer((c) => {
  c.setNoDelay(true);
  let have = 0;
  c.on("data", (b) => { have += b.length; while (have >= ${100}) { have -= 100; c.write(res); } });
});
s.listen(0, "127.0.0.1", () => console.log(s.address().port));`;
const BARE = `
const net = require("node:net");
const [port, target] = process.argv.slice(1).map(Number);
net.createServer({ allowHalfOpen: true }, (c) => {
  const s = net.connect({ port: target, host: "127.0.0.1", allowHalfOpen: true });
  c.pipe(s); s.pipe(c);
  c.on("error", () => s.destroy()); s.on("error", () => c.destroy());
}).listen(port, "127.0.0.1", () => console.log("ready"));`;

async function startNode(code, args = []) {
  const child = start(process.execPath, ["-e", code, ...args]);
  const [line] = await once(child.stdout, "data");
  return { child, port: Number(String(line).trim()) };
}

/** Sends `size` bytes (the pattern repeated) to port, waits for the sink's count; returns MB/s. */
async function send(port, pattern, size) {
  const t0 = process.hrtime.bigint();
  const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true });
  await once(socket, "connect");
  let sent = 0;
  let reply = "";
  socket.setEncoding("latin1");
  socket.on("data", (d) => {
    reply += d;
  });
  await new Promise((resolve) => {
    const pump = () => {
      while (sent < size) {
        const n = Math.min(pattern.length, size - sent);
        sent += n;
        if (!socket.write(n === pattern.length ? pattern : pattern.subarray(0, n))) return;
      }
      socket.off("drain", pump);
      socket.end();
      resolve();
    };
    socket.on("drain", pump);
    pump();
  });
  await once(socket, "end");
  socket.destroy();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (Number(reply) !== size) throw new Error(`sink got ${reply} bytes, expected ${size}`);
  return size / 1e6 / seconds;
}

/**
 * Sequential 100-byte requests, one connection per port, taken in turn: pair k of every port runs
 * (in a shuffled order) before pair k + 1 of any, so that the shared machine's changing load hits every relay alike
 * (separate runs one after the other differed by more than the effects measured). Returns every
 * round trip of every port in microseconds, after a warm-up.
 */
async function pingPongInterleaved(ports, pairs) {
  const req = Buffer.from(`GET /item HTTP/1.1\r\nHost: bench\r\nX-Pad: ${"p".repeat(100 - 44)}\r\n\r\n`);
  if (req.length !== 100) throw new Error(`request is ${req.length} bytes`);
  const resLength = RESPONSE.length;
  const peers = [];
  for (const port of ports) {
    const socket = connect({ port, host: "127.0.0.1", noDelay: true });
    await once(socket, "connect");
    const peer = { socket, got: 0, done: undefined };
    socket.on("data", (d) => {
      peer.got += d.length;
      if (peer.got >= resLength) {
        peer.got -= resLength;
        peer.done();
      }
    });
    peers.push(peer);
  }
  const roundTrip = async (peer) => {
    const answered = new Promise((r) => {
      peer.done = r;
    });
    const t0 = process.hrtime.bigint();
    peer.socket.write(req);
    await answered;
    return Number(process.hrtime.bigint() - t0) / 1e3;
  };
  for (let k = 0; k < 200; k++) for (const peer of peers) await roundTrip(peer);
  const samples = ports.map(() => new Float64Array(pairs));
  // The order within each turn is shuffled, so that no relay always follows the same neighbour.
  const order = peers.map((_, j) => j);
  for (let k = 0; k < pairs; k++) {
    for (let j = order.length - 1; j > 0; j--) {
      const r = Math.floor(Math.random() * (j + 1));
      [order[j], order[r]] = [order[r], order[j]];
    }
    for (const j of order) samples[j][k] = await roundTrip(peers[j]);
  }
  for (const peer of peers) peer.socket.destroy();
  return samples;
}

/**
 * Runs `run(relays)` with every relay of `vias` started (each via is `(run) => result of
 * run(port, child)`); `relays` are their `{ port, child }` in order (no child: the direct path).
 */
async function withAll(vias, run) {
  if (vias.length === 0) return run([]);
  const [first, ...rest] = vias;
  return first((port, child) => withAll(rest, (relays) => run([{ port, child }, ...relays])));
}

function mean(samples) {
  let sum = 0;
  for (const x of samples) sum += x;
  return sum / samples.length;
}

function percentile(samples, p) {
  const sorted = Float64Array.from(samples).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function viaTcpRelay(targetPort, options, run, bin = relayBin) {
  const port = await freePort();
  const child = start(process.execPath, [bin, "127.0.0.1", String(targetPort), String(port), ...options]);
  await once(child.stdout, "data");
  try {
    return { ...(await measured(child, () => run(port, child))), rss: peakRssMiB(child) };
  } finally {
    await stop(child);
  }
}

/** `run()`'s value, and the CPU time and context switches `child` used meanwhile. */
async function measured(child, run) {
  const before = cpuSplit(child);
  const switchesBefore = contextSwitches(child);
  const value = await run();
  const after = cpuSplit(child);
  return {
    value,
    cpu: after.user + after.system - before.user - before.system,
    system: after.system - before.system,
    switches: contextSwitches(child) - switchesBefore,
  };
}

/** "relay CPU 1.23 s, 210 MB per CPU s" for `bytes` relayed. */
function cpuNote(result, bytes) {
  return `relay CPU ${result.cpu.toFixed(2)} s, ${(bytes / 1e6 / result.cpu).toFixed(0)} MB per CPU s`;
}

async function viaSocat(targetPort, options, logFile, run) {
  const port = await freePort();
  const fd = logFile === undefined ? "ignore" : openSync(logFile, "w");
  const child = start(
    "socat",
    [...options, `TCP-LISTEN:${port},bind=127.0.0.1,reuseaddr,fork`, `TCP:127.0.0.1:${targetPort}`],
    { stderr: fd },
  );
  if (typeof fd === "number") closeSync(fd);
  await waitForPort(port);
  try {
    return { value: await run(port, child), rss: "-" };
  } finally {
    await stop(child);
  }
}

async function viaBare(targetPort, run) {
  const port = await freePort();
  const child = start(process.execPath, ["-e", BARE, String(port), String(targetPort)]);
  await once(child.stdout, "data");
  try {
    return { ...(await measured(child, () => run(port, child))), rss: peakRssMiB(child) };
  } finally {
    await stop(child);
  }
}

function httpLikeLines(bytes) {
  const lines = [];
  let total = 0;
  const words = [
    "GET /feeds/item",
    "Host: feeds.example.org",
    "Accept: text/html",
    "Cookie: session",
    "X-Trace",
  ];
  for (let k = 0; total < bytes; k++) {
    const head = `${words[k % words.length]}-${k}: `;
    const line = `${head}${"abcdefghijklmnopqrstuvwxyz0123456789".repeat(3).slice(0, 78 - head.length)}\r\n`;
    lines.push(line);
    total += line.length;
  }
  return Buffer.from(lines.join("")).subarray(0, bytes);
}

function median(values) {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function fileMiB(path) {
  return (statSync(path).size / MiB).toFixed(0);
}

const rows = [];
function row(section, what, size, value, unit, ratioTo, rss, note = "") {
  rows.push({ section, what, size, value, unit, ratioTo, rss, note });
}

async function main() {
  const random = randomBytes(4 * MiB);
  const lines = httpLikeLines(4 * MiB);
  const sink = await startNode(SINK);
  const responder = await startNode(RESPONDER);
  const sizeLabel = `${SIZE / MiB} MiB`;

  if (SECTIONS.includes("a")) await sectionA(random, sink);
  if (SECTIONS.includes("b")) await sectionB(lines, sizeLabel, sink);
  if (SECTIONS.includes("c")) await sectionC(random, sizeLabel, sink);
  if (SECTIONS.includes("d")) await sectionD(responder);
  if (SECTIONS.includes("e")) await sectionE(lines, random, sizeLabel, sink);
  if (SECTIONS.includes("f")) await sectionF(random, sink);
  if (SECTIONS.includes("g")) await sectionG(random, sink);
  await stop(sink.child);
  await stop(responder.child);
  print();
}

/** Shuffles `order` in place (Fisher-Yates). */
function shuffle(order) {
  for (let j = order.length - 1; j > 0; j--) {
    const r = Math.floor(Math.random() * (j + 1));
    [order[j], order[r]] = [order[r], order[j]];
  }
  return order;
}

async function sectionA(random, sink) {
  // (a) plain relaying. Every relay runs at once, and the transfers are interleaved: TURNS turns,
  // in each of which every relay (and the direct connection) moves SIZE / 4 bytes, in a shuffled
  // order, so that a change of the machine's load hits all of them alike. The ratio to socat is
  // taken within each turn and its median reported; one relay after the other, whole runs apart,
  // gave 0.99x and 1.72x socat on the same code. CPU per byte (user + system, all threads) depends
  // much less on the load; socat's is not known (the children that serve its connections are
  // reaped without their time being added to socat's).
  const configs = [
    ["direct (limit)", (run) => run(sink.port, null)],
    ["socat (default)", (run) => viaSocat(sink.port, [], undefined, run)],
    ["bare Node pipe relay", (run) => viaBare(sink.port, run)],
    ["tcp-relay -q", (run) => viaTcpRelay(sink.port, ["-q"], run)],
  ];
  if (BASELINE !== undefined) {
    configs.push(["baseline tcp-relay -q", (run) => viaTcpRelay(sink.port, ["-q"], run, BASELINE)]);
  }
  const names = configs.map(([name]) => name);
  const speeds = names.map(() => []);
  const cpu = names.map(() => 0);
  await withAll(
    configs.map(([, via]) => via),
    async (relays) => {
      for (let turn = 0; turn < TURNS; turn++) {
        for (const k of shuffle(names.map((_, k) => k))) {
          const { port, child } = relays[k];
          if (child === null) {
            speeds[k].push(await send(port, random, A_SIZE));
            continue;
          }
          const r = await measured(child, () => send(port, random, A_SIZE));
          speeds[k].push(r.value);
          cpu[k] += r.cpu;
        }
      }
      // socat's last child is counted once socat has reaped it.
      await new Promise((r) => setTimeout(r, 200));
    },
  );
  const byName = (name) => names.indexOf(name);
  const runs = `${A_SIZE / MiB} MiB x${TURNS}`;
  const perCpu = (k) => `${((A_SIZE * TURNS) / 1e6 / cpu[k]).toFixed(0)} MB per CPU s`;
  // Each turn's ratio to socat and to the bare relay; their medians are the figures compared.
  const turnRatios = (k, peer) => speeds[k].map((v, t) => v / speeds[byName(peer)][t]);
  for (const name of ["direct (limit)", "socat (default)", "bare Node pipe relay"]) {
    const k = byName(name);
    const note = name === "bare Node pipe relay" ? perCpu(k) : "";
    row("a", name, runs, median(speeds[k]), "MB/s", undefined, "-", note);
  }
  for (const name of names.slice(3)) {
    const k = byName(name);
    const vsSocat = turnRatios(k, "socat (default)");
    const vsBare = turnRatios(k, "bare Node pipe relay");
    row(
      "a",
      name,
      runs,
      median(speeds[k]),
      "MB/s",
      undefined,
      "-",
      `median of turns ${median(vsSocat).toFixed(2)}x socat (target >= 1.0x; ${vsSocat.filter((x) => x >= 1).length}/${TURNS} turns >= 1.0x, range ${Math.min(...vsSocat).toFixed(2)}-${Math.max(...vsSocat).toFixed(2)}), ` +
        `${median(vsBare).toFixed(2)}x bare (target >= 0.9x); ${perCpu(k)} (CPU ${(cpu[k] / cpu[byName("bare Node pipe relay")]).toFixed(2)}x the bare relay's)` +
        (name === "tcp-relay -q" && BASELINE !== undefined
          ? `; median of turns ${median(turnRatios(k, "baseline tcp-relay -q")).toFixed(2)}x baseline`
          : ""),
    );
  }
}

async function sectionB(lines, sizeLabel, sink) {
  // (b) text log to a file, HTTP-like lines
  const textLog = join(work, "text.log");
  const socatV = join(work, "socat-v.log");
  const oursB = await viaTcpRelay(sink.port, ["-q", "-logfile", textLog], (p) => send(p, lines, SIZE));
  const textLogSize = fileMiB(textLog);
  rmSync(textLog);
  const socatB = await viaSocat(sink.port, ["-v"], socatV, (p) => send(p, lines, SOCAT_LOG_SIZE));
  const socatVSize = fileMiB(socatV);
  rmSync(socatV);
  row(
    "b",
    "socat -v 2>file",
    `${SOCAT_LOG_SIZE / MiB} MiB`,
    socatB.value,
    "MB/s",
    undefined,
    "-",
    `log ${socatVSize} MiB`,
  );
  row(
    "b",
    "tcp-relay -q -logfile",
    sizeLabel,
    oursB.value,
    "MB/s",
    [["socat -v", socatB.value]],
    oursB.rss,
    `log ${textLogSize} MiB; target >= 100 MB/s`,
  );
}

/** How fast this disk takes `bytes` written as 64 KiB synchronous writes (the log's own pattern). */
function diskWriteMBps(bytes) {
  const path = join(work, "disk-probe.bin");
  const block = randomBytes(64 * 1024);
  const fd = openSync(path, "w");
  const t0 = process.hrtime.bigint();
  for (let done = 0; done < bytes; done += block.length) writeSync(fd, block);
  closeSync(fd);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  rmSync(path);
  return bytes / 1e6 / seconds;
}

async function sectionC(random, sizeLabel, sink) {
  // (c) hex log to a file, random bytes. The log is 5.4 times the traffic, so at 1 GiB the disk
  // is the limit: it is measured with the same write pattern and size, and shown as the relayed
  // MB/s it allows. A 256 MiB run, whose log fits in the page cache, shows the relay's own speed.
  const hexLog = join(work, "hex.log");
  const socatX = join(work, "socat-x.log");
  const oursC = await viaTcpRelay(sink.port, ["-q", "-b", "-logfile", hexLog], (p) => send(p, random, SIZE));
  const hexLogBytes = statSync(hexLog).size;
  rmSync(hexLog);
  const expansion = hexLogBytes / SIZE;
  const disk = diskWriteMBps(hexLogBytes) / expansion;
  const small = Math.min(SIZE, 256 * MiB);
  const oursSmall = await viaTcpRelay(sink.port, ["-q", "-b", "-logfile", hexLog], (p) =>
    send(p, random, small),
  );
  rmSync(hexLog);
  const socatC = await viaSocat(sink.port, ["-x"], socatX, (p) => send(p, random, SOCAT_LOG_SIZE));
  const socatXSize = fileMiB(socatX);
  rmSync(socatX);
  const logMiB = (hexLogBytes / MiB).toFixed(0);
  row(
    "c",
    "socat -x 2>file",
    `${SOCAT_LOG_SIZE / MiB} MiB`,
    socatC.value,
    "MB/s",
    undefined,
    "-",
    `log ${socatXSize} MiB`,
  );
  row(
    "c",
    `disk limit (${logMiB} MiB written)`,
    sizeLabel,
    disk,
    "MB/s",
    undefined,
    "-",
    "disk MB/s / log expansion",
  );
  row(
    "c",
    "tcp-relay -q -b -logfile",
    sizeLabel,
    oursC.value,
    "MB/s",
    [
      ["socat -x", socatC.value],
      ["disk limit", disk],
    ],
    oursC.rss,
    `log ${logMiB} MiB; target >= 50 MB/s`,
  );
  row(
    "c",
    "tcp-relay -q -b -logfile",
    `${small / MiB} MiB`,
    oursSmall.value,
    "MB/s",
    [["socat -x", socatC.value]],
    oursSmall.rss,
    "log fits in the page cache",
  );
}

async function sectionD(responder) {
  // (d) latency: every relay runs at once, each with its own connection, and the pairs go to each
  // in turn, in a shuffled order (see pingPongInterleaved), so that the machine's load hits all
  // alike. "Added" is a relay's median round trip minus the direct one's median, in the same
  // round: the median, not the mean, because on this shared machine a few round trips of
  // milliseconds (another process scheduled) moved the mean by more than the effect measured.
  // Tail: a percentile of a difference is not defined, so the p99 compared is each relay's round
  // trip. Each relay's CPU and context switches per round trip are much less noisy still.
  const configs = [
    ["direct round trip", (run) => run(responder.port, null)],
    ["socat (default)", (run) => viaSocat(responder.port, [], undefined, run)],
    ["socat -v 2>file", (run) => viaSocat(responder.port, ["-v"], join(work, "lat-socat.log"), run)],
    ["bare Node pipe relay", (run) => viaBare(responder.port, run)],
    ["tcp-relay -q (no log)", (run) => viaTcpRelay(responder.port, ["-q"], run)],
    [
      "tcp-relay -q -logfile",
      (run) => viaTcpRelay(responder.port, ["-q", "-logfile", join(work, "lat.log")], run),
    ],
  ];
  if (BASELINE !== undefined) {
    configs.push(["baseline -q (no log)", (run) => viaTcpRelay(responder.port, ["-q"], run, BASELINE)]);
    configs.push([
      "baseline -q -logfile",
      (run) => viaTcpRelay(responder.port, ["-q", "-logfile", join(work, "lat-base.log")], run, BASELINE),
    ]);
  }
  const names = configs.map(([name]) => name);
  const perTrip = PAIRS + 200; // with the warm-up
  // ROUNDS runs of every relay at once; each figure is the median over the rounds, and the notes
  // give each round's ratio.
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    await withAll(
      configs.map(([, via]) => via),
      async (relays) => {
        const before = relays.map(({ child }) =>
          child === null ? null : { cpu: cpuSplit(child), switches: contextSwitches(child) },
        );
        const samples = await pingPongInterleaved(
          relays.map((r) => r.port),
          PAIRS,
        );
        // socat's per-connection child is counted once socat has reaped it.
        await new Promise((r) => setTimeout(r, 200));
        const direct = samples[0];
        const figures = new Map(
          names.map((name, k) => {
            const child = relays[k].child;
            let cpuUs = Number.NaN;
            let switches = Number.NaN;
            if (child !== null) {
              const after = cpuSplit(child);
              const was = before[k];
              cpuUs = ((after.user + after.system - was.cpu.user - was.cpu.system) * 1e6) / perTrip;
              switches = (contextSwitches(child) - was.switches) / perTrip;
            }
            const figure = {
              added: median(samples[k]) - median(direct),
              addedMean: mean(samples[k]) - mean(direct),
              p99: percentile(samples[k], 99),
              rtt: median(samples[k]),
              cpuUs,
              switches,
            };
            return [name, figure];
          }),
        );
        rounds.push(figures);
      },
    );
  }
  const med = (name, key) => median(rounds.map((f) => f.get(name)[key]));
  const each = (name, key, digits = 0) => rounds.map((f) => f.get(name)[key].toFixed(digits)).join("/");
  const perRound = (name, key, peer) =>
    rounds.map((f) => (f.get(name)[key] / f.get(peer)[key]).toFixed(2)).join("/");
  const pairs = `${PAIRS} pairs x${ROUNDS}`;
  const bare = "bare Node pipe relay";
  row("d", "direct round trip (median)", pairs, med("direct round trip", "rtt"), "µs RTT", undefined, "-");
  row("d", "direct round trip (p99)", pairs, med("direct round trip", "p99"), "µs RTT", undefined, "-");
  for (const name of ["socat (default)", "socat -v 2>file", bare]) {
    row(
      "d",
      `${name}, added median`,
      pairs,
      med(name, "added"),
      "µs",
      undefined,
      "-",
      `per round ${each(name, "added", 1)} µs; added mean ${med(name, "addedMean").toFixed(1)} µs; ` +
        `CPU ${each(name, "cpuUs")} µs per round trip`,
    );
    row("d", `${name}, p99 RTT`, pairs, med(name, "p99"), "µs", undefined, "-");
  }
  for (const name of names.slice(4)) {
    row(
      "d",
      `${name}, added median`,
      pairs,
      med(name, "added"),
      "µs",
      [
        ["bare", med(bare, "added")],
        ["socat", med("socat (default)", "added")],
      ],
      "-",
      `target <= 1.1x bare; per round ${perRound(name, "added", bare)}x bare; ` +
        `added mean ${med(name, "addedMean").toFixed(1)} µs (${(med(name, "addedMean") / med(bare, "addedMean")).toFixed(2)}x bare's); ` +
        `relay CPU ${each(name, "cpuUs")} µs per round trip (${perRound(name, "cpuUs", bare)}x bare's), ` +
        `${each(name, "switches", 1)} context switches (bare ${each(bare, "switches", 1)})`,
    );
    row(
      "d",
      `${name}, p99 RTT`,
      pairs,
      med(name, "p99"),
      "µs",
      [["socat", med("socat (default)", "p99")]],
      "-",
      `target <= 2x socat; per round ${perRound(name, "p99", "socat (default)")}x socat`,
    );
  }
}

async function sectionE(lines, random, sizeLabel, sink) {
  // (e) the views beyond the original, each beside its peer measured in the same run: -json to a
  // file beside the text log to a file, both on HTTP-like lines; -pcap to a file beside the relay
  // without any log, on random bytes.
  const textLog = join(work, "e-text.log");
  const jsonLog = join(work, "e-json.log");
  const text = await viaTcpRelay(sink.port, ["-q", "-logfile", textLog], (p) => send(p, lines, SIZE));
  const textSize = fileMiB(textLog);
  rmSync(textLog);
  const json = await viaTcpRelay(sink.port, ["-q", "-json", "-logfile", jsonLog], (p) =>
    send(p, lines, SIZE),
  );
  const jsonSize = fileMiB(jsonLog);
  rmSync(jsonLog);
  const baseJson =
    BASELINE === undefined
      ? undefined
      : await viaTcpRelay(
          sink.port,
          ["-q", "-json", "-logfile", jsonLog],
          (p) => send(p, lines, SIZE),
          BASELINE,
        );
  if (baseJson !== undefined) rmSync(jsonLog);
  row(
    "e",
    "tcp-relay -q -logfile (text)",
    sizeLabel,
    text.value,
    "MB/s",
    undefined,
    text.rss,
    `log ${textSize} MiB; ${cpuNote(text, SIZE)}`,
  );
  row(
    "e",
    "tcp-relay -q -json -logfile",
    sizeLabel,
    json.value,
    "MB/s",
    [
      ["text log", text.value],
      ["target 100 MB/s", 100],
      ...(baseJson === undefined ? [] : [["baseline", baseJson.value]]),
    ],
    json.rss,
    `log ${jsonSize} MiB; target >= 100 MB/s; ${cpuNote(json, SIZE)}`,
  );
  if (baseJson !== undefined) {
    row(
      "e",
      "baseline -q -json -logfile",
      sizeLabel,
      baseJson.value,
      "MB/s",
      undefined,
      baseJson.rss,
      cpuNote(baseJson, SIZE),
    );
  }
  const capture = join(work, "e.pcap");
  const plain = await viaTcpRelay(sink.port, ["-q"], (p) => send(p, random, SIZE));
  const pcap = await viaTcpRelay(sink.port, ["-q", "-pcap", capture], (p) => send(p, random, SIZE));
  const pcapSize = fileMiB(capture);
  rmSync(capture);
  row(
    "e",
    "tcp-relay -q (no log)",
    sizeLabel,
    plain.value,
    "MB/s",
    undefined,
    plain.rss,
    cpuNote(plain, SIZE),
  );
  row(
    "e",
    "tcp-relay -q -pcap file",
    sizeLabel,
    pcap.value,
    "MB/s",
    [
      ["no log", plain.value],
      ["target 200 MB/s", 200],
    ],
    pcap.rss,
    `capture ${pcapSize} MiB; target >= 200 MB/s; ${cpuNote(pcap, SIZE)}`,
  );
}

async function sectionF(random, sink) {
  // (f) -rate: each rate for RATE_SECONDS; the rate achieved is bytes / time from connect to the
  // sink's count (the connection set-up is a few ms of it).
  const KiB = 1024;
  for (const kib of [64, 1024, 10 * 1024, 100 * 1024]) {
    const bytes = Math.round(kib * KiB * RATE_SECONDS);
    const ours = await viaTcpRelay(sink.port, ["-q", "-rate", `c2s:${kib}`], (p) => send(p, random, bytes));
    const achieved = ours.value; // MB/s
    const asked = (kib * KiB) / 1e6;
    const label = kib >= 1024 ? `${kib / 1024} MiB/s` : `${kib} KiB/s`;
    row(
      "f",
      `tcp-relay -q -rate c2s:${kib} (${label})`,
      `${(bytes / MiB).toFixed(2)} MiB`,
      achieved,
      "MB/s",
      [["asked", asked]],
      ours.rss,
      `target 0.95-1.05x asked; ${cpuNote(ours, bytes)}`,
    );
  }
}

/**
 * The relay with `-q -pcap -` piped into `cat >/dev/null` (a real pipe, as into wireshark). The
 * relay's `child` also names the reader (`reader.pid`, cat), whose CPU is the capture's too: it
 * copies every byte out of the pipe on the same two cores.
 */
async function viaRelayPipedCapture(targetPort, run, bin = relayBin, reader = "cat >/dev/null") {
  const port = await freePort();
  const quote = (a) => `'${a}'`;
  const cmd = `${[process.execPath, bin, "127.0.0.1", String(targetPort), String(port), "-q", "-pcap", "-"].map(quote).join(" ")} | ${reader}`;
  const child = spawn("sh", ["-c", cmd], { stdio: ["ignore", "ignore", "pipe"], detached: true });
  children.add(child);
  await once(child.stderr, "data");
  const pids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .map(Number)
    .filter((pid) => pid > 0);
  const isRelay = (pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("tcp-relay");
  const relayPid = pids.find(isRelay);
  const readerPid = pids.find((pid) => !isRelay(pid));
  const relay = { pid: relayPid ?? child.pid, reader: readerPid === undefined ? null : { pid: readerPid } };
  try {
    return { ...(await measured(relay, () => run(port, relay))), rss: peakRssMiB(relay) };
  } finally {
    // The relay (the shell's child) stops on SIGTERM; the pipe then closes and cat ends.
    process.kill(-child.pid, "SIGTERM");
    await once(child, "exit");
    children.delete(child);
  }
}

async function sectionG(random, sink) {
  // (g) -pcap - into a pipe against the same relay without a capture. As in (a), both run at once
  // and take turns (TURNS turns of SIZE / 4 each, shuffled): the ratio is taken within each turn.
  // Each turn also adds up the CPU of every process that moves the bytes: the relay (user and
  // system apart), the pipe's reader (cat), the sink, and this sender; on two shared cores the
  // reader's copy out of the pipe competes with the relay as much as the relay's own copy into it.
  const configs = [
    ["tcp-relay -q (no capture)", (run) => viaTcpRelay(sink.port, ["-q"], run)],
    ["tcp-relay -q -pcap - | cat", (run) => viaRelayPipedCapture(sink.port, run)],
  ];
  if (BASELINE !== undefined) {
    configs.push([
      "baseline tcp-relay -q -pcap - | cat",
      (run) => viaRelayPipedCapture(sink.port, run, BASELINE),
    ]);
  }
  if (READER_PIPE_MIB !== undefined) {
    // The same relay with a larger pipe, set by the reader (F_SETPIPE_SZ = 1031; Node has no
    // fcntl): fewer, larger writes, so fewer wake-ups of the reader and of the relay.
    const bytes = Math.round(READER_PIPE_MIB * MiB);
    configs.push([
      `tcp-relay -q -pcap - | cat, ${READER_PIPE_MIB} MiB pipe`,
      (run) =>
        viaRelayPipedCapture(
          sink.port,
          run,
          relayBin,
          `perl -e 'fcntl(STDIN, 1031, ${bytes}) or die "F_SETPIPE_SZ: $!"; exec "cat"' >/dev/null`,
        ),
    ]);
  }
  const names = configs.map(([name]) => name);
  const speeds = names.map(() => []);
  const cpu = names.map(() => ({ total: 0, system: 0, reader: 0, sink: 0, sender: 0 }));
  const seconds = (split) => split.user + split.system;
  await withAll(
    configs.map(([, via]) => via),
    async (relays) => {
      for (let turn = 0; turn < TURNS; turn++) {
        for (const k of shuffle(names.map((_, k) => k))) {
          const { port, child } = relays[k];
          const reader0 = child.reader ? seconds(cpuSplit(child.reader)) : 0;
          const sink0 = seconds(cpuSplit(sink.child));
          const sender0 = process.cpuUsage();
          const r = await measured(child, () => send(port, random, A_SIZE));
          const sender = process.cpuUsage(sender0);
          speeds[k].push(r.value);
          cpu[k].total += r.cpu;
          cpu[k].system += r.system;
          cpu[k].reader += child.reader ? seconds(cpuSplit(child.reader)) - reader0 : 0;
          cpu[k].sink += seconds(cpuSplit(sink.child)) - sink0;
          cpu[k].sender += (sender.user + sender.system) / 1e6;
        }
      }
    },
  );
  const runs = `${A_SIZE / MiB} MiB x${TURNS}`;
  const GiBs = (A_SIZE * TURNS) / (1024 * MiB);
  const perCpu = (k) => (A_SIZE * TURNS) / 1e6 / cpu[k].total;
  const all = (k) => cpu[k].total + cpu[k].reader + cpu[k].sink + cpu[k].sender;
  // Where the CPU goes, per GiB relayed: system time is the kernel copying to the sockets and the pipe.
  const split = (k) => {
    const c = cpu[k];
    const perGiB = (x) => (x / GiBs).toFixed(2);
    return (
      `CPU s per GiB: relay user ${perGiB(c.total - c.system)} + system ${perGiB(c.system)}, ` +
      `reader ${perGiB(c.reader)}, sink ${perGiB(c.sink)}, sender ${perGiB(c.sender)}, all ${perGiB(all(k))}`
    );
  };
  row(
    "g",
    names[0],
    runs,
    median(speeds[0]),
    "MB/s",
    undefined,
    "-",
    `relay ${perCpu(0).toFixed(0)} MB per CPU s; ${split(0)}`,
  );
  for (let k = 1; k < names.length; k++) {
    const ratios = speeds[k].map((v, t) => v / speeds[0][t]);
    row(
      "g",
      names[k],
      runs,
      median(speeds[k]),
      "MB/s",
      undefined,
      "-",
      `${k === 1 ? "target >= 0.90x no capture; " : ""}median of turns ${median(ratios).toFixed(2)}x no capture (range ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}); ` +
        `relay ${perCpu(k).toFixed(0)} MB per CPU s (${(perCpu(k) / perCpu(0)).toFixed(2)}x no capture), ` +
        `all processes ${(all(0) / all(k)).toFixed(2)}x no capture's bytes per CPU s; ${split(k)}`,
    );
  }
}

function print() {
  const table = rows.map((r) => ({
    "": r.section,
    run: r.what,
    size: r.size,
    figure: `${r.value.toFixed(1)} ${r.unit}`,
    ratio:
      r.ratioTo === undefined
        ? ""
        : r.ratioTo.map(([name, v]) => `${(r.value / v).toFixed(2)}x ${name}`).join(", "),
    "peak RSS MiB": r.rss,
    note: r.note,
  }));
  console.log(`node ${process.version}, ${new Date().toISOString()}; MB = 10^6 bytes`);
  console.table(table);
  console.log(
    "ratios: throughput ours/peer (higher is better); latency ours/peer added µs (lower is better)",
  );
}

try {
  await main();
} finally {
  for (const c of children) c.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
}
