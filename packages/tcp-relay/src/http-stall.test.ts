// -stall through a real relay: a server that holds its answer makes the HTTP view write a
// "stalled" line, and the answer, when it comes, still gets its record.
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
