import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { MemorySink } from "./byte-sink.js";
import { PcapConnection } from "./pcap-connection.js";

function capture(payload: Uint8Array, client = "10.1.2.3", server = "10.9.8.7"): Buffer {
  const sink = new MemorySink();
  const tcp = new PcapConnection(
    sink,
    { address: client, port: 40000 },
    { address: server, port: 80 },
    () => 1e12,
  );
  tcp.open();
  tcp.data("C", payload);
  tcp.end("C", true);
  return sink.buf.subarray(0, sink.pos);
}

test("the TCP checksum is the same whatever the alignment of the chunk read (fast and byte paths)", () => {
  for (const length of [1, 63, 64, 65, 1000, 70_001]) {
    const payload = randomBytes(length);
    const aligned = capture(payload);
    for (const shift of [1, 2, 3]) {
      const backing = Buffer.alloc(length + shift);
      payload.copy(backing, shift);
      assert.ok(capture(backing.subarray(shift)).equals(aligned), `length ${length}, shifted by ${shift}`);
    }
  }
});

test("IPv6 when an end is IPv6; IPv4-mapped addresses stay IPv4 between IPv4 ends", () => {
  const v6 = capture(Buffer.from("x"), "::1", "::ffff:127.0.0.1");
  assert.equal(v6[16]! >> 4, 6, "the first packet is IPv6");
  const v4 = capture(Buffer.from("x"), "::ffff:127.0.0.1", "127.0.0.1");
  assert.equal(v4[16]! >> 4, 4, "the first packet is IPv4");
});
