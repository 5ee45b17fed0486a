// The -http view against golden files, under every segmentation: the same records whatever TCP
// does. The clock advances 1 ms per reading; the view reads it a fixed number of times per
// message, so times are exact and the same for every segmentation.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { MemorySink } from "./byte-sink.js";
import type { DirectionWriter } from "./direction-writer.js";
import { EntryWriter } from "./entry-writer.js";
import { HttpExchangeView } from "./http-exchange-view.js";
import { JsonHttpRecordWriter, TextHttpRecordWriter } from "./http-record-writer.js";
import { JsonEntryWriter } from "./json-entry-writer.js";
import { LineAssembler } from "./line-assembler.js";
import { replay, SEGMENTATIONS, type Segmentation, type Step } from "./test-support/segmentations.js";
import { IsoTimestamp } from "./timestamp.js";

const keepAlive: Step[] = [
  { dir: "C", data: "GET /index.html HTTP/1.1\r\nHost: example\r\n\r\n" },
  { dir: "S", data: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" },
  {
    dir: "C",
    data: "POST /upload HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nabcd\r\n6\r\nefghij\r\n0\r\nX-Trailer: t\r\n\r\n",
  },
  { dir: "S", data: "HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n3\r\nok!\r\n0\r\n\r\n" },
  // Pipelined: two requests at once, then both answers; HEAD has no body despite Content-Length.
  { dir: "C", data: "GET /a HTTP/1.1\r\n\r\nHEAD /b HTTP/1.1\r\n\r\n" },
  {
    dir: "S",
    data: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nAAHTTP/1.1 200 OK\r\nContent-Length: 999\r\n\r\n",
  },
  // 100-continue: the interim response is not the answer; 204 and 304 have no body.
  { dir: "C", data: "PUT /f HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n" },
  { dir: "S", data: "HTTP/1.1 100 Continue\r\n\r\n" },
  { dir: "C", data: "xyz" },
  { dir: "S", data: "HTTP/1.1 204 No Content\r\n\r\n" },
  { dir: "C", data: 'GET /cached HTTP/1.1\r\nIf-None-Match: "e"\r\n\r\n' },
  { dir: "S", data: 'HTTP/1.1 304 Not Modified\r\nETag: "e"\r\n\r\n' },
  // Connection: close, the response delimited by the close of the server side.
  { dir: "C", data: "GET /last HTTP/1.1\r\nConnection: close\r\n\r\n" },
  { dir: "S", data: "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end" },
];

const http10: Step[] = [
  { dir: "C", data: "GET /old HTTP/1.0\r\n\r\n" },
  { dir: "S", data: "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nold style body\n" },
];

const upgrade: Step[] = [
  { dir: "C", data: "GET /chat HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n" },
  { dir: "S", data: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\nserver frame\n" },
  { dir: "C", data: "client frame\x81\x00\n" },
];

const refusedUpgrade: Step[] = [
  { dir: "C", data: "GET /x HTTP/1.1\r\nUpgrade: h2c\r\n\r\nGET /y HTTP/1.1\r\n\r\n" },
  {
    dir: "S",
    data: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\ny",
  },
];

const notHttp: Step[] = [
  { dir: "S", data: "220 mail.example ESMTP\r\n" },
  { dir: "C", data: "EHLO me\r\n" },
  { dir: "S", data: "250 ok\r\n" },
];

const unanswered: Step[] = [{ dir: "C", data: "GET /hang HTTP/1.1\r\n\r\nGET /pipelined HTTP/1.1\r\n\r\n" }];

const conversations = [keepAlive, http10, upgrade, refusedUpgrade, notHttp, unanswered];

function render(how: Segmentation, json: boolean): string {
  const sink = new MemorySink();
  let ms = Date.UTC(2024, 0, 2, 3, 4, 5, 0);
  const clock = () => ms++;
  const time = new IsoTimestamp(() => Date.UTC(2024, 0, 2, 3, 4, 5, 67));
  time.refresh();
  conversations.forEach((steps, n) => {
    const writer = (dir: "C" | "S"): DirectionWriter =>
      json ? new JsonEntryWriter(sink, n, dir, time) : new EntryWriter(sink, `${dir}-${n}-`, "", null);
    const writers = { C: writer("C"), S: writer("S") };
    const records = json
      ? new JsonHttpRecordWriter(sink, n, time)
      : new TextHttpRecordWriter(sink, n, "", null);
    const view = new HttpExchangeView(
      n,
      records,
      (dir, offset) => new LineAssembler(writers[dir], offset),
      clock,
      null,
      0,
    );
    replay(steps, how, (dir) => (dir === "C" ? view.client : view.server));
    view.client.end();
    view.server.end();
  });
  return sink.buf.toString("utf8", 0, sink.pos);
}

function checkGolden(name: string, text: string): void {
  const fixture = new URL(`./fixtures/${name}.txt`, import.meta.url);
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(fixture, text);
  assert.equal(text, readFileSync(fixture, "utf8"));
}

for (const how of SEGMENTATIONS) {
  test(`-http: keep-alive, chunked, pipelining, HEAD, 100/204/304, close, HTTP/1.0, Upgrade, not HTTP; ${how}`, () =>
    checkGolden("http", render(how, false)));
  test(`-http -json: the same as http and error objects; ${how}`, () =>
    checkGolden("http-json", render(how, true)));
}

test("-http -json lines carry the spec's keys", () => {
  const lines = render("random", true)
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const first = lines.find((o) => o.type === "http");
  assert.deepEqual(Object.keys(first), [
    "time",
    "type",
    "conn",
    "seq",
    "method",
    "target",
    "status",
    "reqBytes",
    "resBytes",
    "ttfbMs",
    "totalMs",
  ]);
});

test("-stall: a request without a response gets one stalled line, then its record when answered", async () => {
  const sink = new MemorySink();
  const records = new TextHttpRecordWriter(sink, 0, "", null);
  const writer = new EntryWriter(sink, "C-0-", "", null);
  const view = new HttpExchangeView(
    0,
    records,
    (_d, offset) => new LineAssembler(writer, offset),
    Date.now,
    null,
    60,
  );
  view.client.push(Buffer.from("GET /slow HTTP/1.1\r\n\r\n"));
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(sink.text(), "H-0-#1 GET /slow -> stalled: no response after 0.06 s\n");
  view.server.push(Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
  assert.match(
    sink.text().split("\n")[1]!,
    /^H-0-#1 GET \/slow -> 200 \(request body 0 bytes, response body 0 bytes, first byte \d+ ms, total \d+ ms\)$/,
  );
  view.client.end();
  view.server.end();
});

test("a client that pipelines more than 1000 requests without answers falls back to bytes", () => {
  const sink = new MemorySink();
  const records = new TextHttpRecordWriter(sink, 0, "", null);
  const writer = new EntryWriter(sink, "C-0-", "", null);
  const view = new HttpExchangeView(
    0,
    records,
    (_d, offset) => new LineAssembler(writer, offset),
    Date.now,
    null,
    0,
  );
  view.client.push(Buffer.from("GET / HTTP/1.1\r\n\r\n".repeat(1001)));
  const lines = sink.text().split("\n");
  assert.equal(
    lines[0],
    "H-0-Warning: not HTTP (more than 1000 requests without a response); logging the bytes",
  );
  assert.equal(lines[1], "C-0-#018000 -> [GET / HTTP/1.1 ]", "the bytes from the 1001st request on");
  view.client.end();
  view.server.end();
});
