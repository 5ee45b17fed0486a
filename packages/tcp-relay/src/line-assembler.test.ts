import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { MemorySink } from "./byte-sink.js";
import { EntryWriter, MAX_TEXT_ENTRY } from "./entry-writer.js";
import { LineAssembler } from "./line-assembler.js";

function show(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b === 13 ? " " : b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".";
  return s;
}

// The rule written the obvious way, over the whole stream at once: lines split at LF, each line
// cut into 142-byte pieces, an empty line one empty entry, a last line without LF kept.
function reference(stream: Buffer): string {
  let out = "";
  let i = 0;
  while (i < stream.length) {
    const lf = stream.indexOf(10, i);
    const stop = lf === -1 ? stream.length : lf;
    if (stop === i) out += `C-0-#${String(i).padStart(6, "0")} -> []\n`;
    for (let j = i; j < stop; j += MAX_TEXT_ENTRY) {
      const piece = stream.subarray(j, Math.min(j + MAX_TEXT_ENTRY, stop));
      out += `C-0-#${String(j).padStart(6, "0")} -> [${show(piece)}]\n`;
    }
    i = lf === -1 ? stream.length : lf + 1;
  }
  return out;
}

function assemble(chunks: Buffer[]): string {
  const sink = new MemorySink();
  const lines = new LineAssembler(new EntryWriter(sink, "C-0-", "", null));
  for (const c of chunks) lines.push(c);
  lines.end();
  return sink.text();
}

function cutAt(stream: Buffer, cuts: number[]): Buffer[] {
  const points = [0, ...cuts, stream.length];
  return points.slice(1).map((end, k) => stream.subarray(points[k], end));
}

test("an HTTP request gives one entry per line with offsets, CR as a space", () => {
  const out = assemble([Buffer.from("GET / HTTP/1.1\r\nHost: a\r\n\r\nbody\tend")]);
  assert.equal(
    out,
    [
      "C-0-#000000 -> [GET / HTTP/1.1 ]",
      "C-0-#000016 -> [Host: a ]",
      "C-0-#000025 -> [ ]",
      "C-0-#000027 -> [body.end]",
      "",
    ].join("\n"),
  );
});

test("long lines split at 142 bytes; a k × 142 line and its LF gives k entries", () => {
  const a = "a".repeat(142);
  const b = "b".repeat(143);
  const c = "c".repeat(284);
  const out = assemble([Buffer.from(`${a}\n${b}\n${c}\n\n`)]);
  assert.deepEqual(
    out.split("\n").map((l) => l.replace(/\[(\w)\1*\]/, (_m, ch: string) => `[${ch}…]`)),
    [
      "C-0-#000000 -> [a…]",
      "C-0-#000143 -> [b…]",
      "C-0-#000285 -> [b…]",
      "C-0-#000287 -> [c…]",
      "C-0-#000429 -> [c…]",
      "C-0-#000572 -> []",
      "",
    ],
  );
  assert.equal(out.split("\n")[0]!.length, "C-0-#000000 -> []".length + 142);
  assert.equal(out.split("\n")[2], "C-0-#000285 -> [b]");
});

test("offsets past a million take seven digits", () => {
  const sink = new MemorySink();
  const lines = new LineAssembler(new EntryWriter(sink, "S-3-", "", null));
  lines.push(Buffer.alloc(1_234_567, 10));
  lines.push(Buffer.from("x\n"));
  assert.ok(sink.text().endsWith("S-3-#1234566 -> []\nS-3-#1234567 -> [x]\n"));
});

test("every split of the same bytes into two or three chunks gives the same entries", () => {
  const cases = [
    Buffer.from(
      `GET / HTTP/1.1\r\nHost: x\r\n\r\n${"z".repeat(142)}\n${"y".repeat(150)}\r\n\n\x00\xff`,
      "latin1",
    ),
    Buffer.from(`${"q".repeat(284)}\n${"w".repeat(141)}\r\n${"e".repeat(142)}`),
  ];
  for (const stream of cases) {
    const expected = reference(stream);
    assert.equal(assemble([stream]), expected);
    for (let a = 0; a <= stream.length; a++) {
      assert.equal(assemble(cutAt(stream, [a])), expected, `cut at ${a}`);
    }
    for (let a = 0; a <= stream.length; a += 7) {
      for (let b = a; b <= stream.length; b++) {
        assert.equal(assemble(cutAt(stream, [a, b])), expected, `cuts at ${a}, ${b}`);
      }
    }
    assert.equal(assemble([...stream].map((byte) => Buffer.from([byte]))), expected, "byte by byte");
  }
});

test("random bytes with random segmentation match the reference", () => {
  for (let round = 0; round < 200; round++) {
    // Mostly printable with LFs often enough to make lines of every length around the limit.
    const stream = randomBytes(2000);
    for (let k = 0; k < stream.length; k++) if (stream[k]! % 97 === 0) stream[k] = 10;
    const cuts: number[] = [];
    for (let at = 0; at < stream.length; at += 1 + Math.floor(Math.random() * 300)) cuts.push(at);
    assert.equal(assemble(cutAt(stream, cuts)), reference(stream));
  }
});

test("a partial line is held until its LF, and written when the direction ends", () => {
  const sink = new MemorySink();
  const lines = new LineAssembler(new EntryWriter(sink, "C-0-", "", null));
  lines.push(Buffer.from("Hos"));
  assert.equal(sink.text(), "");
  lines.push(Buffer.from("t: a\r"));
  assert.equal(sink.text(), "");
  lines.push(Buffer.from("\nnext"));
  assert.equal(sink.text(), "C-0-#000000 -> [Host: a ]\n");
  lines.end();
  assert.equal(sink.text(), "C-0-#000000 -> [Host: a ]\nC-0-#000009 -> [next]\n");
});
