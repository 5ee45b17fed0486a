import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { test } from "node:test";
import { answerBody, endWithBody, SlicedBody, sliceBytes } from "./sliced-body.js";

const bytes = Buffer.from(Array.from({ length: 20 * sliceBytes + 123 }, (_, i) => i % 251));

test("a sliced body delivers every byte in order, and other callbacks run between its slices", async () => {
  let turns = 0;
  let ticking = true;
  const tick = () => {
    turns++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const chunks: Buffer[] = [];
  await pipeline(
    new SlicedBody(bytes),
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        assert.ok(chunk.length <= sliceBytes);
        chunks.push(chunk);
        done();
      },
    }),
  );
  ticking = false;
  assert.deepEqual(Buffer.concat(chunks), bytes);
  assert.equal(chunks.length, 21);
  assert.ok(turns >= 20, `the event loop turned ${turns} times while 21 slices were written`);
  assert.equal(answerBody(bytes.subarray(0, sliceBytes)).length, sliceBytes, "small: the bytes themselves");
  assert.ok(answerBody(bytes) instanceof SlicedBody);
});

test("a response ended in slices arrives whole, with its Content-Length", async () => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": bytes.length });
    endWithBody(res, bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    assert.equal(res.headers.get("content-length"), String(bytes.length));
    assert.equal(res.headers.get("transfer-encoding"), null);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), bytes);
  } finally {
    server.close();
  }
});
