import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { MemorySink } from "./byte-sink.js";
import { EntryWriter } from "./entry-writer.js";
import { HexFormatter } from "./hex-formatter.js";

function hexAll(chunks: Buffer[]): string {
  const sink = new MemorySink();
  const hex = new HexFormatter(new EntryWriter(sink, "C-0-", "", null));
  for (const c of chunks) hex.push(c);
  hex.end();
  return sink.text();
}

// 16 bytes a row: upper-case hex padded to the width of 16 bytes, two spaces, the characters.
function reference(stream: Buffer): string {
  let out = "";
  for (let i = 0; i < stream.length; i += 16) {
    const row = [...stream.subarray(i, i + 16)];
    const hex = row.map((b) => b.toString(16).toUpperCase().padStart(2, "0")).join(" ");
    const chars = row.map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".")).join("");
    out += `C-0-#${String(i).padStart(6, "0")} -> [${hex.padEnd(47, " ")}  ${chars}]\n`;
  }
  return out;
}

test("the classic example row", () => {
  assert.equal(
    hexAll([Buffer.from("GET / HTTP/1.1\r\n")]),
    "C-0-#000000 -> [47 45 54 20 2F 20 48 54 54 50 2F 31 2E 31 0D 0A  GET / HTTP/1.1..]\n",
  );
});

test("a short last row is padded to the width of 16", () => {
  assert.equal(
    hexAll([Buffer.from("0123456789abcdefXY\x00")]),
    "C-0-#000000 -> [30 31 32 33 34 35 36 37 38 39 61 62 63 64 65 66  0123456789abcdef]\n" +
      "C-0-#000016 -> [58 59 00                                         XY.]\n",
  );
});

test("every segmentation of the same bytes gives the same rows", () => {
  const stream = randomBytes(100);
  const expected = reference(stream);
  assert.equal(hexAll([stream]), expected);
  for (let a = 0; a <= stream.length; a++) {
    for (let b = a; b <= stream.length; b += 3) {
      const chunks = [stream.subarray(0, a), stream.subarray(a, b), stream.subarray(b)];
      assert.equal(hexAll(chunks), expected, `cuts at ${a}, ${b}`);
    }
  }
  assert.equal(hexAll([...stream].map((x) => Buffer.from([x]))), expected);
});

test("nothing is written for an empty direction", () => {
  assert.equal(hexAll([]), "");
});
