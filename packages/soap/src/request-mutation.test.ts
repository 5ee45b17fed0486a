import assert from "node:assert/strict";
import { test } from "node:test";
import { createProbeService } from "./test-support/probe-service.js";
import { parseXmlTree } from "./test-support/xml-tree.js";

// A valid Axis-style request, cut, duplicated and corrupted byte by byte: whatever arrives, the
// service answers with a well-formed envelope (a result or a fault) and never throws.
const valid = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body><ns1:echoArguments xmlns:ns1="http://webservices">' +
    '<number href="#id0"/><text xsi:type="xsd:string" xmlns:xsd="http://www.w3.org/2001/XMLSchema">Gr&#xFC;&#xD83D;&#xDE00;</text>' +
    '<anything xsi:nil="true"/></ns1:echoArguments><multiRef id="id0" soapenc:root="0" ' +
    'xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/">2.0</multiRef></soapenv:Body></soapenv:Envelope>',
);

/** A small deterministic generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test("400 mutated requests: every answer is a well-formed envelope, 200 or 500, without internals", async () => {
  const service = createProbeService();
  const next = random(20240229);
  const interesting = Buffer.from('<>&"/:#=\u0000x9;', "latin1");
  const statuses = new Map<number, number>();
  for (let i = 0; i < 400; i++) {
    const bytes = Buffer.from(valid);
    let body: Buffer = bytes;
    const kind = i % 4;
    if (kind === 0) body = bytes.subarray(0, Math.floor(next() * bytes.length));
    else if (kind === 1) {
      for (let k = 0; k < 1 + Math.floor(next() * 4); k++) {
        bytes[Math.floor(next() * bytes.length)] = interesting[Math.floor(next() * interesting.length)]!;
      }
    } else if (kind === 2) {
      const at = Math.floor(next() * bytes.length);
      const len = Math.floor(next() * 40);
      body = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at, at + len), bytes.subarray(at)]);
    } else {
      bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
    }
    const response = await service.handle(body, "text/xml; charset=utf-8");
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    assert.ok(response.status === 200 || response.status === 500, `status ${response.status}`);
    const root = parseXmlTree(String(response.body));
    assert.equal(root.local, "Envelope");
    assert.doesNotMatch(String(response.body), /at \w+ \(|\.ts:\d|node:internal|ECONNREFUSED/);
  }
  // The mutations are not all trivially fatal: some still decode, most do not.
  assert.ok((statuses.get(200) ?? 0) > 0 && (statuses.get(500) ?? 0) > 0, JSON.stringify([...statuses]));
});
