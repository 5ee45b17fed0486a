// The relay's behaviour on real sockets: bytes unchanged both ways, HTTP keep-alive logged line
// by line, half-close relayed, an unreachable server reported, resets tearing down both sides.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import {
  type Agent,
  createServer as createHttpServer,
  Agent as HttpAgent,
  request as httpRequest,
} from "node:http";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type RelayOptions, startRelay } from "./relay-server.js";
import { dial, ended, freePort, listenLocal, Transcript, waitFor } from "./test-support/sockets.js";

const dir = mkdtempSync(join(tmpdir(), "tcp-relay-behaviour-"));
after(() => rmSync(dir, { recursive: true, force: true }));

async function relayTo(remotePort: number, extra: Partial<RelayOptions> = {}) {
  const consoleOut = new Transcript();
  const relay = await startRelay({
    host: "127.0.0.1",
    remotePort,
    localPort: 0,
    bind: "127.0.0.1",
    console: consoleOut,
    ...extra,
  });
  return { relay, consoleOut };
}

function entriesOf(log: string, label: string): { offset: number; content: string }[] {
  const out: { offset: number; content: string }[] = [];
  for (const line of log.split("\n")) {
    const m = /^ *(?:\[[^\]]+\] )?([CS]-\d+)-#(\d{6,}) -> \[(.*)\]$/.exec(line);
    if (m !== null && m[1] === label) out.push({ offset: Number(m[2]), content: m[3]! });
  }
  return out;
}

test("random binary data crosses unchanged both ways at once, and the Finished lines count it", async () => {
  const up = randomBytes(3 * 1024 * 1024 + 17);
  const down = randomBytes(2 * 1024 * 1024 + 5);
  let serverGot: Buffer | undefined;
  const server = await listenLocal((socket: Socket) => {
    const parts: Buffer[] = [];
    socket.on("data", (c: Buffer) => parts.push(c));
    socket.on("end", () => {
      serverGot = Buffer.concat(parts);
    });
    socket.end(down);
  });
  for (const binary of [false, true]) {
    serverGot = undefined;
    const logFile = join(dir, `exact-${binary}.log`);
    const { relay } = await relayTo(server.port, { quiet: true, logFile, binary });
    const client = await dial(relay.port);
    client.end(up);
    await ended(client);
    await waitFor(() => serverGot !== undefined, "the server to get everything");
    assert.ok(client.received().equals(down), "server -> client bytes unchanged");
    assert.ok(serverGot!.equals(up), "client -> server bytes unchanged");
    await relay.close();
    const log = readFileSync(logFile, "utf8");
    assert.match(log, new RegExp(`^C-0-Finished: ${up.length} bytes \\(\\d+\\.\\d kb/s\\)$`, "m"));
    assert.match(log, new RegExp(`^S-0-Finished: ${down.length} bytes \\(\\d+\\.\\d kb/s\\)$`, "m"));
    if (binary) {
      // Every byte appears, in order, in the hex rows.
      const hex = entriesOf(log, "C-0")
        .map((e) => e.content.slice(0, 47).trim().replaceAll(" ", ""))
        .join("");
      assert.equal(hex, up.toString("hex").toUpperCase());
    }
  }
  server.close();
});

test("an HTTP keep-alive conversation is one connection, logged line by line with true offsets", async () => {
  const http = createHttpServer((req, res) => {
    res.setHeader("Set-Cookie", `seen=${req.url}`);
    res.end(`you asked for ${req.url}\n`);
  });
  http.keepAliveTimeout = 5000;
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  const { relay, consoleOut } = await relayTo((http.address() as AddressInfo).port);
  const agent: Agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  for (const path of ["/one", "/two", "/three"]) {
    const body = await new Promise<string>((done, fail) => {
      httpRequest(
        { host: "127.0.0.1", port: relay.port, path, agent, headers: { Cookie: "id=42" } },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            text += c;
          });
          res.on("end", () => done(text));
        },
      )
        .on("error", fail)
        .end();
    });
    assert.equal(body, `you asked for ${path}\n`);
  }
  agent.destroy();
  await waitFor(() => consoleOut.text().includes("S-0-Finished"), "the connection to finish");
  await relay.close();
  http.close();
  const log = consoleOut.text();
  assert.equal(relay.accepted, 1, "one connection carried the three requests");
  const requests = entriesOf(log, "C-0");
  const requestLines = requests.filter((e) => e.content.startsWith("GET "));
  assert.deepEqual(
    requestLines.map((e) => e.content),
    ["GET /one HTTP/1.1 ", "GET /two HTTP/1.1 ", "GET /three HTTP/1.1 "],
  );
  assert.ok(requests.some((e) => e.content === "Cookie: id=42 "));
  assert.ok(requests.some((e) => e.content === "Connection: keep-alive "));
  // Headers are short lines with LFs, so each offset is the previous one plus its line and LF.
  for (const dirLabel of ["C-0", "S-0"]) {
    let expected = 0;
    const entries = entriesOf(log, dirLabel);
    for (const e of entries) {
      assert.equal(e.offset, expected, `${dirLabel} entry "${e.content}"`);
      expected += e.content.length + 1;
    }
    const finished = new RegExp(`^${dirLabel}-Finished: (\\d+) bytes`, "m").exec(log);
    assert.equal(Number(finished?.[1]), expected, `${dirLabel} Finished byte count`);
  }
  const responses = entriesOf(log, "S-0").map((e) => e.content);
  assert.ok(responses.includes("Set-Cookie: seen=/two "));
  assert.equal(responses.filter((c) => c === "HTTP/1.1 200 OK ").length, 3);
});

test("half-close: a reply sent seconds after the client's FIN still arrives", async () => {
  const server = await listenLocal((socket: Socket) => {
    socket.resume();
    socket.on("end", () => {
      setTimeout(() => socket.end("late reply\n"), 1500);
    });
  });
  const { relay, consoleOut } = await relayTo(server.port);
  const client = await dial(relay.port);
  client.end("request\n");
  await ended(client);
  assert.equal(client.received().toString(), "late reply\n");
  await relay.close();
  server.close();
  const lines = consoleOut.text().split("\n");
  assert.deepEqual(
    lines.slice(1).map((l) => l.replace(/\(\d+\.\d kb\/s\)$/, "(R kb/s)")),
    [
      "C-0-#000000 -> [request]",
      "C-0-Finished: 8 bytes (R kb/s)",
      "S-0-#000000 -> [late reply]",
      "S-0-Finished: 11 bytes (R kb/s)",
      "",
    ],
  );
  // The rate counts from the accept: 11 bytes over at least 1.5 s is under 0.01 kb/s.
  assert.match(lines[4]!, /\(0\.0 kb\/s\)$/);
});

test("an unreachable server is reported, its number used up, and the relay keeps serving", async () => {
  const port = await freePort();
  const logFile = join(dir, "down.log");
  const { relay, consoleOut } = await relayTo(port, { logFile });
  const first = await dial(relay.port);
  await ended(first);
  first.destroy();
  assert.equal(first.received().length, 0);
  const errorLine = `S-0-Error: connect ECONNREFUSED 127.0.0.1:${port}`;
  await waitFor(() => consoleOut.text().includes(errorLine), "the error line");
  const second = await dial(relay.port);
  await ended(second);
  second.destroy();
  await waitFor(() => consoleOut.text().includes("S-1-Error: connect ECONNREFUSED"), "number 0 used up");
  // The server comes up on that port: the next connection is relayed, numbered 2.
  const server = await listenLocal((s: Socket) => s.end("up\n"), port);
  const third = await dial(relay.port);
  third.end();
  await ended(third);
  assert.equal(third.received().toString(), "up\n");
  await relay.close();
  server.close();
  const log = readFileSync(logFile, "utf8");
  assert.ok(log.includes(`${errorLine}\n`), "the error line is in the log file too");
  assert.ok(!/^S-0-Finished/m.test(log), "no Finished lines for a connection that never was");
  assert.match(log, /^S-2-#000000 -> \[up\]$/m);
});

test("a client reset mid-transfer tears down both sides; Finished lines are still written", async () => {
  let serverSide: Socket | undefined;
  const server = await listenLocal((socket: Socket) => {
    serverSide = socket;
    socket.on("error", () => {});
    socket.resume();
    // Stream data at the client until the connection goes away.
    const block = randomBytes(64 * 1024);
    const pump = () => {
      while (!socket.destroyed && socket.write(block));
    };
    socket.on("drain", pump);
    pump();
  });
  const { relay, consoleOut } = await relayTo(server.port, { quiet: false });
  const client = await dial(relay.port);
  client.write(randomBytes(100_000));
  await waitFor(() => client.received().length > 1_000_000, "a megabyte to arrive");
  client.resetAndDestroy();
  await waitFor(() => serverSide?.destroyed === true, "the server side to be torn down", 5000);
  await waitFor(() => /S-0-Finished/.test(consoleOut.text()), "the Finished lines");
  const log = consoleOut.text();
  assert.match(log, /^C-0-Finished: 100000 bytes/m);
  assert.match(log, /^S-0-Finished: \d{7,} bytes/m);
  // The relay is still up.
  const next = await dial(relay.port);
  next.write("still there\n");
  await waitFor(() => /C-1-#000000 -> \[still there\]/.test(consoleOut.text()), "the next connection");
  next.destroy();
  await relay.close();
  server.close();
  await sleep(0);
});

test("host names and IPv6 literals: the relay reaches the server either way", async (t) => {
  const byName = await listenLocal((s: Socket) => s.end("by name\n"));
  const { relay } = await relayTo(byName.port, { host: "localhost" });
  const client = await dial(relay.port);
  await ended(client);
  client.destroy();
  assert.equal(client.received().toString(), "by name\n");
  await relay.close();
  byName.close();

  const v6 = createServer({ allowHalfOpen: true }, (s: Socket) => s.end("over IPv6\n"));
  const listening = await new Promise<boolean>((done) => {
    v6.once("error", () => done(false));
    v6.listen(0, "::1", () => done(true));
  });
  if (!listening) {
    t.skip("this machine has no IPv6 loopback (::1)");
    return;
  }
  const v6relay = await relayTo((v6.address() as AddressInfo).port, { host: "::1", bind: "::1" });
  const c6 = connect({ host: "::1", port: v6relay.relay.port, allowHalfOpen: true });
  let got = "";
  c6.setEncoding("utf8").on("data", (d: string) => {
    got += d;
  });
  await once(c6, "end");
  c6.destroy();
  assert.equal(got, "over IPv6\n");
  await v6relay.relay.close();
  v6.close();
  assert.match(
    v6relay.consoleOut.text(),
    /^starting proxy for ::1:\d+ on port \d+\nS-0-#000000 -> \[over IPv6\]/,
  );
});
