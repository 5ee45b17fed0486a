// The control API driven by toxiproxy's own Node client (toxiproxy-node-client): toxics added and
// removed while a connection is open act on it at once; errors come back in toxiproxy's shape.
import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { test } from "node:test";
import { type Latency, Toxiproxy, ToxiproxyError } from "toxiproxy-node-client";
import { CONTROL_PROXY_NAME } from "./control-api.js";
import { parseFault } from "./fault-spec.js";
import { startRelay } from "./relay-server.js";
import { dial, ended, listenLocal, receiveBytes, Transcript } from "./test-support/sockets.js";

async function echoRelay(extra: { json?: boolean } = {}) {
  const server = await listenLocal((s: Socket) => {
    s.on("error", () => {});
    s.pipe(s);
  });
  const console = new Transcript();
  const relay = await startRelay({
    host: "127.0.0.1",
    remotePort: server.port,
    localPort: 0,
    bind: "127.0.0.1",
    control: 0,
    console,
    faults: [parseFault("-refuse", "@1000")],
    ...extra,
  });
  const client = new Toxiproxy(`http://127.0.0.1:${relay.controlPort}`);
  return {
    server,
    relay,
    console,
    client,
    async close() {
      await relay.close();
      server.close();
    },
  };
}

/** Sends `text` and waits for its echo; the milliseconds it took. */
async function roundTrip(socket: Socket & { received: () => Buffer }, text: string): Promise<number> {
  const before = socket.received().length;
  const started = performance.now();
  socket.write(text);
  await receiveBytes(socket, before + text.length);
  return performance.now() - started;
}

test("toxiproxy's client adds a latency toxic mid-connection, it acts at once, and removing it ends it", async () => {
  const r = await echoRelay();
  try {
    const proxy = await r.client.get(CONTROL_PROXY_NAME);
    assert.equal(proxy.upstream, `127.0.0.1:${r.server.port}`);
    assert.equal(proxy.listen, `127.0.0.1:${r.relay.port}`);
    const socket = await dial(r.relay.port);
    assert.ok((await roundTrip(socket, "fast\n")) < 150);
    const toxic = await proxy.addToxic<Latency>({
      name: "slow-answers",
      type: "latency",
      stream: "downstream",
      toxicity: 1,
      attributes: { latency: 300, jitter: 0 },
    });
    assert.equal(toxic.name, "slow-answers");
    const slow = await roundTrip(socket, "slow\n");
    assert.ok(slow >= 290 && slow < 1000, `with the toxic: ${slow.toFixed(0)} ms`);
    const updated = await toxic.update({ ...toxic.toJson(), attributes: { latency: 100, jitter: 0 } });
    assert.deepEqual(updated.attributes, { latency: 100, jitter: 0 });
    const less = await roundTrip(socket, "less\n");
    assert.ok(less >= 90 && less < 290, `after the update: ${less.toFixed(0)} ms`);
    await toxic.remove();
    assert.ok((await roundTrip(socket, "fast again\n")) < 150);
    socket.end();
    await ended(socket);
    assert.equal(socket.received().toString(), "fast\nslow\nless\nfast again\n");
    await r.relay.close();
    assert.match(
      r.console.text(),
      /^control API for toxiproxy clients on http:\/\/127\.0\.0\.1:\d+\/proxies\/tcp-relay$/m,
    );
    assert.match(r.console.text(), /^F-0-s2c-delay 300 ms$/m);
  } finally {
    await r.close();
  }
});

test("a limit_data toxic added mid-connection cuts it after that many more bytes; reset removes all", async () => {
  const r = await echoRelay({ json: true });
  try {
    const proxy = await r.client.get(CONTROL_PROXY_NAME);
    const socket = await dial(r.relay.port);
    await roundTrip(socket, "0123456789");
    await proxy.addToxic<{ bytes: number }>({
      name: "cut",
      type: "limit_data",
      stream: "upstream",
      toxicity: 1,
      attributes: { bytes: 15 },
    });
    // 10 bytes went up before the toxic; 5 more may: the server gets exactly those, then the
    // connection is cut (the client, the sender, is closed before their echo can reach it).
    socket.on("error", () => {});
    socket.write("abcdefghij");
    await ended(socket);
    socket.destroy();
    assert.equal(socket.received().toString(), "0123456789");
    const cut = await proxy.getToxic<{ bytes: number }>("cut");
    assert.deepEqual(cut.toJson(), {
      name: "cut",
      type: "limit_data",
      stream: "upstream",
      toxicity: 1,
      attributes: { bytes: 15 },
    });
    assert.ok(Object.keys(await r.client.getAll()).includes(CONTROL_PROXY_NAME));
    const list = () =>
      fetch(`http://127.0.0.1:${r.relay.controlPort}/proxies/tcp-relay/toxics`).then(
        (res) => res.json() as Promise<{ name: string }[]>,
      );
    assert.deepEqual(
      (await list()).map((t) => t.name),
      ["refuse", "cut"],
    );
    await r.client.reset();
    assert.deepEqual(await list(), []);
    await r.relay.close();
    const fault = r.console
      .text()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.type === "fault" && l.dropped === undefined);
    assert.deepEqual(
      { dir: fault?.dir, fault: fault?.fault, name: fault?.name, bytes: fault?.bytes },
      { dir: "c2s", fault: "limit", name: "cut", bytes: 15 },
    );
    assert.match(r.console.text(), /"type":"finished","conn":0,"dir":"C","bytes":15,/);
  } finally {
    await r.close();
  }
});

test("a timeout toxic stops the data at once and closes the connection after its timeout", async () => {
  const r = await echoRelay();
  try {
    const proxy = await r.client.get(CONTROL_PROXY_NAME);
    const socket = await dial(r.relay.port);
    socket.on("error", () => {});
    await roundTrip(socket, "before\n");
    await proxy.addToxic<{ timeout: number }>({
      name: "hang-then-close",
      type: "timeout",
      stream: "downstream",
      toxicity: 1,
      attributes: { timeout: 300 },
    });
    const started = performance.now();
    socket.write("after\n");
    await ended(socket);
    const waited = performance.now() - started;
    assert.ok(waited >= 280 && waited < 2000, `closed after ${waited.toFixed(0)} ms`);
    assert.equal(socket.received().toString(), "before\n", "nothing got through after the toxic");
    socket.destroy();
    await r.relay.close();
    assert.match(r.console.text(), /^F-0-s2c-blackhole after 0 ms, closing after 300 ms$/m);
    assert.match(
      r.console.text(),
      /^F-0-s2c-blackhole after 0 ms, closing after 300 ms: dropped 6 bytes from #000007 on$/m,
    );
  } finally {
    await r.close();
  }
});

test("the API's errors are toxiproxy's: unknown toxic type, bad attributes, unknown proxy or toxic, a taken name", async () => {
  const r = await echoRelay();
  try {
    const proxy = await r.client.get(CONTROL_PROXY_NAME);
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => assert.fail("expected an error"),
        (e: unknown) => e,
      );
    const unknownType = await failure(
      proxy.addToxic({
        name: "x",
        type: "slow_close",
        stream: "upstream",
        toxicity: 1,
        attributes: { delay: 1 },
      }),
    );
    assert.ok(unknownType instanceof ToxiproxyError || unknownType instanceof Error);
    const base = `http://127.0.0.1:${r.relay.controlPort}`;
    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, { method: "POST", body: JSON.stringify(body) }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as { error: string; status: number },
      }));
    const slowClose = await post("/proxies/tcp-relay/toxics", {
      type: "slow_close",
      attributes: { delay: 1 },
    });
    assert.equal(slowClose.status, 400);
    assert.match(
      slowClose.body.error,
      /toxic type "slow_close" is not supported \(supported: latency, bandwidth, slicer, limit_data, reset_peer, timeout\)/,
    );
    const badRate = await post("/proxies/tcp-relay/toxics", {
      type: "bandwidth",
      attributes: { rate: "fast" },
    });
    assert.deepEqual(badRate, {
      status: 400,
      body: { error: 'attribute "rate" must be a number of at least 0; got "fast"', status: 400 },
    });
    const taken = await post("/proxies/tcp-relay/toxics", {
      name: "refuse",
      type: "latency",
      attributes: { latency: 1 },
    });
    assert.equal(taken.status, 409);
    const otherProxy = await fetch(`${base}/proxies/redis`);
    assert.equal(otherProxy.status, 404);
    const noToxic = await fetch(`${base}/proxies/tcp-relay/toxics/nope`, { method: "DELETE" });
    assert.equal(noToxic.status, 404);
    const create = await post("/proxies", {
      name: "redis",
      listen: "127.0.0.1:0",
      upstream: "127.0.0.1:6379",
    });
    assert.equal(create.status, 400);
    assert.match(create.body.error, /this relay is the one proxy "tcp-relay"/);
  } finally {
    await r.close();
  }
});
