// The -http view through a real relay: a server that holds its answer makes it write a "stalled"
// line (and the answer, when it comes, still gets its record); Node's own HTTP client and server
// on a keep-alive connection get one record per request and no byte entries.
import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { test } from "node:test";
import { startRelay } from "./relay-server.js";
import { dial, listenLocal, receiveBytes, Transcript, waitFor } from "./test-support/sockets.js";

test("-http -stall 0.2: a held request is reported stalled, then answered", async () => {
  let answer: (() => void) | undefined;
  const server = await listenLocal((socket: Socket) => {
    socket.once("data", () => {
      answer = () => socket.end("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
  });
  const consoleOut = new Transcript();
  const relay = await startRelay({
    host: "127.0.0.1",
    remotePort: server.port,
    localPort: 0,
    bind: "127.0.0.1",
    console: consoleOut,
    http: true,
    stallSeconds: 0.2,
  });
  try {
    const client = await dial(relay.port);
    client.write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
    await waitFor(() => consoleOut.text().includes("stalled"), "the stalled line");
    assert.match(consoleOut.text(), /^H-0-#1 GET \/slow -> stalled: no response after 0\.2 s$/m);
    answer!();
    await receiveBytes(client, 40);
    client.end();
    await waitFor(() => consoleOut.text().includes("S-0-Finished"), "the Finished lines");
    assert.match(
      consoleOut.text(),
      /^H-0-#1 GET \/slow -> 200 \(request body 0 bytes, response body 2 bytes, first byte \d+ ms, total \d+ ms\)$/m,
    );
    const ttfb = Number(/first byte (\d+) ms/.exec(consoleOut.text())![1]);
    assert.ok(ttfb >= 200, `time to first byte ${ttfb} ms counts the wait`);
  } finally {
    await relay.close();
    server.close();
  }
});

test("-http between Node's own HTTP client and server: keep-alive, chunked and sized bodies, a HEAD", async () => {
  const { createServer: createHttpServer, request, Agent } = await import("node:http");
  const httpServer = createHttpServer((req, res) => {
    let body = 0;
    req.on("data", (c: Buffer) => {
      body += c.length;
    });
    req.on("end", () => {
      if (req.url === "/chunked") {
        res.write("part one ");
        res.end("part two");
      } else {
        res.setHeader("Content-Length", String(body));
        res.end("x".repeat(body));
      }
    });
  });
  await new Promise<void>((done) => httpServer.listen(0, "127.0.0.1", done));
  const consoleOut = new Transcript();
  const relay = await startRelay({
    host: "127.0.0.1",
    remotePort: (httpServer.address() as { port: number }).port,
    localPort: 0,
    bind: "127.0.0.1",
    console: consoleOut,
    http: true,
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const call = (method: string, path: string, body = "") =>
    new Promise<number>((done, fail) => {
      const req = request({ host: "127.0.0.1", port: relay.port, method, path, agent }, (res) => {
        res.resume();
        res.on("end", () => done(res.statusCode!));
      });
      req.on("error", fail);
      req.end(body);
    });
  try {
    await call("GET", "/chunked");
    await call("POST", "/echo", "twelve bytes");
    await call("HEAD", "/echo");
    agent.destroy();
    await waitFor(() => consoleOut.text().includes("S-0-Finished"), "the Finished lines");
  } finally {
    await relay.close();
    httpServer.close();
  }
  const records = consoleOut
    .text()
    .split("\n")
    .filter((l) => l.startsWith("H-"));
  assert.deepEqual(
    records.map((l) => l.replace(/first byte \d+ ms, total \d+ ms/, "T")),
    [
      "H-0-#1 GET /chunked -> 200 (request body 0 bytes, response body 17 bytes, T)",
      "H-0-#2 POST /echo -> 200 (request body 12 bytes, response body 12 bytes, T)",
      "H-0-#3 HEAD /echo -> 200 (request body 0 bytes, response body 0 bytes, T)",
    ],
  );
  assert.doesNotMatch(consoleOut.text(), /-> \[/, "no byte entries for an HTTP connection");
});
