// The log format against golden files: the same conversations through a real relay on real
// sockets, with a fixed clock so that timestamps and rates are exact. UPDATE_GOLDEN=1 rewrites
// the files (then read them against the spec before committing).
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { type RelayOptions, startRelay } from "./relay-server.js";
import { dial, listenLocal, receiveBytes, Transcript } from "./test-support/sockets.js";

const fixedClock = () => new Date(2024, 0, 2, 3, 4, 5).getTime();
const dir = mkdtempSync(join(tmpdir(), "tcp-relay-golden-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A small HTTP-like server: answers each request (ended by an empty line) with a fixed reply. */
async function httpLikeServer() {
  return listenLocal((socket: Socket) => {
    let pending = "";
    let count = 0;
    socket.setEncoding("latin1");
    socket.on("data", (text: string) => {
      pending += text;
      for (let end = pending.indexOf("\r\n\r\n"); end !== -1; end = pending.indexOf("\r\n\r\n")) {
        pending = pending.slice(end + 4);
        count++;
        const body = count === 1 ? "hello" : `second\tanswer\x00\xff${"z".repeat(150)}`;
        socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`, "latin1");
      }
    });
    socket.on("end", () => socket.end());
  });
}

/** A line server: answers every "PING x" line with "PONG x". */
async function pingServer() {
  return listenLocal((socket: Socket) => {
    socket.setEncoding("latin1");
    socket.on("data", (text: string) => socket.write(text.replaceAll("PING", "PONG")));
    socket.on("end", () => socket.end());
  });
}

async function closeClient(client: Socket): Promise<void> {
  client.end();
  if (!client.closed) await once(client, "close");
}

async function keepAliveConversation(port: number): Promise<void> {
  const client = await dial(port);
  client.write("GET /index.html HTTP/1.1\r\nHost: example\r\nConnection: keep-alive\r\n\r\n");
  const first = await receiveBytes(client, 43);
  client.write(`POST /form HTTP/1.1\r\nHost: example\r\nCookie: ${"c".repeat(200)}\r\n\r\n`);
  // 40 bytes of status line and headers, then the 165-byte body.
  await receiveBytes(client, first.length + 40 + 165);
  await closeClient(client);
}

async function parallelConversation(port: number): Promise<void> {
  const clients: Awaited<ReturnType<typeof dial>>[] = [];
  const exchange = async (k: number, text: string) => {
    const c = clients[k]!;
    const before = c.received().length;
    c.write(`PING ${text}\r\n`);
    await receiveBytes(c, before + text.length + 7);
  };
  for (let k = 0; k < 3; k++) {
    clients.push(await dial(port));
    await exchange(k, `${k} hello`);
  }
  await exchange(0, "0 again");
  await exchange(1, "1 again");
  await closeClient(clients[0]!);
  clients.push(await dial(port));
  await exchange(3, "3 takes the free slot 0");
  await exchange(2, "2 shares slot 0");
  for (const k of [2, 1, 3]) await closeClient(clients[k]!);
}

function normalise(text: string, remotePort: number, localPort: number, logFile: string): string {
  return text
    .replaceAll(`:${remotePort} on port ${localPort}`, ":REMOTEPORT on port LOCALPORT")
    .replaceAll(`"remotePort":${remotePort},"localPort":${localPort}`, '"remotePort":0,"localPort":0')
    .replaceAll(logFile, "LOGFILE");
}

async function golden(
  name: string,
  options: Partial<RelayOptions>,
  conversation: (port: number) => Promise<void>,
  serverKind: () => ReturnType<typeof listenLocal>,
  clock: () => number = fixedClock,
): Promise<void> {
  const server = await serverKind();
  const consoleOut = new Transcript();
  const logFile = join(dir, `${name}.log`);
  const relay = await startRelay({
    host: "127.0.0.1",
    remotePort: server.port,
    localPort: 0,
    bind: "127.0.0.1",
    logFile,
    console: consoleOut,
    now: clock,
    ...options,
  });
  try {
    await conversation(relay.port);
  } finally {
    await relay.close();
    server.close();
  }
  const shown = normalise(consoleOut.text(), server.port, relay.port, logFile);
  const logged = normalise(readFileSync(logFile, "utf8"), server.port, relay.port, logFile);
  assert.equal(logged, shown, "the log file holds what the console shows");
  const fixture = new URL(`./fixtures/${name}.txt`, import.meta.url);
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(fixture, shown);
  assert.equal(shown, readFileSync(fixture, "utf8"));
}

test("text mode: a keep-alive HTTP conversation, line by line with offsets", () =>
  golden("text", {}, keepAliveConversation, httpLikeServer));

test("binary mode (-b): the same conversation as hex rows", () =>
  golden("binary", { binary: true }, keepAliveConversation, httpLikeServer));

test("timestamps (-t) on entries and Finished lines, from the injected clock", () =>
  golden("timestamps", { timestamps: true }, keepAliveConversation, httpLikeServer));

test("millisecond timestamps (-tms) on entries and Finished lines, from the injected clock", () =>
  golden("timestamps-ms", { timestampMillis: true }, keepAliveConversation, httpLikeServer, () =>
    new Date(2024, 0, 2, 3, 4, 5, 67).getTime(),
  ));

test("indentation (-i 2) with parallel connections: lowest free slot, n mod 2 when all are busy", () =>
  golden("indent", { indent: 2 }, parallelConversation, pingServer));

// UTC, so that the ISO times do not depend on the machine's time zone.
const utcClock = () => Date.UTC(2024, 0, 2, 3, 4, 5, 67);

test("-json: the same conversation as JSON lines, start-up lines included", () =>
  golden("json-socket", { json: true }, keepAliveConversation, httpLikeServer, utcClock));

test("-json -b -i 2 -t: hex entries; indent and -t do not apply to JSON", () =>
  golden(
    "json-binary-socket",
    { json: true, binary: true, indent: 2, timestamps: true },
    keepAliveConversation,
    httpLikeServer,
    utcClock,
  ));

test("-http: one line per request/response pair instead of the byte entries", () =>
  golden("http-socket", { http: true, timestamps: true }, keepAliveConversation, httpLikeServer));

test("-http on a connection that is not HTTP: one warning, then the byte entries", () =>
  golden("http-fallback-socket", { http: true, indent: 2 }, parallelConversation, pingServer));
