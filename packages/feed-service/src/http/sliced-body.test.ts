import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { test } from "node:test";
import { loadDemoData } from "../demo/load-demo-data.js";
import { fixtureNow, startTestService } from "../test-support/service-fixture.js";
import { buildRequest } from "../test-support/soap-test-client.js";
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
  const small = bytes.subarray(0, sliceBytes);
  assert.equal(answerBody(small), small, "small: the bytes themselves");
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

test("a SOAP answer larger than a slice arrives whole through the server, answered afresh and from the cache", async () => {
  const service = await startTestService();
  try {
    await loadDemoData(service.store, { posts: 600, now: fixtureNow });
    const body = buildRequest("getMostRecentPosts", { limit: 600, offset: 0, languageIds: "" });
    const answers: string[] = [];
    // The first call is answered afresh, the second kept, the third served from the answer cache.
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${service.baseUrl}/webservices/FeedAggregator`, {
        method: "POST",
        headers: { "Content-Type": "text/xml; charset=utf-8", SOAPAction: '""' },
        body,
      });
      assert.equal(res.status, 200);
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.ok(bytes.length > 4 * sliceBytes, `${bytes.length} bytes`);
      assert.equal(res.headers.get("content-length"), String(bytes.length));
      const text = bytes.toString("utf8");
      assert.match(text, /<\/soapenv:Envelope>\s*$/);
      assert.equal(text.match(/<data soapenc:arrayType="xsd:anyType\[\d+\]"/g)?.length, 600);
      answers.push(text);
    }
    assert.equal(answers[1], answers[0]);
    assert.equal(answers[2], answers[0]);
  } finally {
    await service.close();
  }
});

test("a JSON page and an output feed larger than a slice arrive whole, and HEAD and If-None-Match still work", async () => {
  const service = await startTestService();
  try {
    await loadDemoData(service.store, { posts: 600, now: fixtureNow });
    for (const path of [
      "/api/v1/posts?limit=600",
      "/feeds/recent.atom?limit=200",
      "/feeds/recent.json?limit=200",
    ]) {
      const url = service.baseUrl + path;
      const bodies: Buffer[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(url);
        assert.equal(res.status, 200, path);
        const bytes = Buffer.from(await res.arrayBuffer());
        assert.ok(bytes.length > sliceBytes, `${path}: ${bytes.length} bytes`);
        assert.equal(res.headers.get("content-length"), String(bytes.length), path);
        bodies.push(bytes);
      }
      assert.deepEqual(bodies[1], bodies[0], path);
      assert.deepEqual(bodies[2], bodies[0], path);
      if (path.startsWith("/api/") || path.endsWith(".json?limit=200"))
        JSON.parse(bodies[0]!.toString("utf8"));
      else assert.match(bodies[0]!.toString("utf8"), /<\/feed>\s*$/);
      const head = await fetch(url, { method: "HEAD" });
      assert.equal(head.status, 200, `${path} HEAD`);
      assert.equal(head.headers.get("content-length"), String(bodies[0]!.length), `${path} HEAD`);
      const etag = head.headers.get("etag");
      assert.ok(etag, path);
      const again = await fetch(url, { headers: { "If-None-Match": etag } });
      assert.equal(again.status, 304, path);
      assert.equal((await again.arrayBuffer()).byteLength, 0);
    }
  } finally {
    await service.close();
  }
});
