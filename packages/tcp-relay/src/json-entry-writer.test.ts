// The JSON-lines log against golden files, under every segmentation: same objects whatever TCP
// does, each line valid JSON whose `text` is exactly the text log's content.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { MemorySink } from "./byte-sink.js";
import type { EntryAssembler } from "./entry-assembler.js";
import { EntryWriter } from "./entry-writer.js";
import { HexFormatter } from "./hex-formatter.js";
import { JsonEntryWriter } from "./json-entry-writer.js";
import { LineAssembler } from "./line-assembler.js";
import { replay, SEGMENTATIONS, type Segmentation, type Step } from "./test-support/segmentations.js";
import { IsoTimestamp } from "./timestamp.js";

const conversation: Step[] = [
  { dir: "C", data: 'GET /q?a="b"&c=\\d HTTP/1.1\r\nHost: example\r\n\r\n' },
  { dir: "S", data: "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n" },
  { dir: "S", data: Buffer.from([0x00, 0xff, 0x0d, 0x0a, 0x22, 0x5c, 0x7f, 0x41, 0x42, 0x09, 0x0a, 0x7e]) },
  { dir: "C", data: `POST /form HTTP/1.1\r\nX-Long: ${"L".repeat(150)}\r\n\r\ntail without LF` },
];

function render(how: Segmentation, binary: boolean, json: boolean): string {
  const sink = new MemorySink();
  const time = new IsoTimestamp(() => Date.UTC(2024, 0, 2, 3, 4, 5, 67));
  time.refresh();
  const assemblers = new Map<"C" | "S", EntryAssembler>();
  const writers = new Map<"C" | "S", EntryWriter | JsonEntryWriter>();
  for (const dir of ["C", "S"] as const) {
    const writer = json
      ? new JsonEntryWriter(sink, 0, dir, time)
      : new EntryWriter(sink, `${dir}-0-`, "", null);
    writers.set(dir, writer);
    assemblers.set(dir, binary ? new HexFormatter(writer) : new LineAssembler(writer));
  }
  replay(conversation, how, (dir) => assemblers.get(dir)!);
  for (const dir of ["C", "S"] as const) {
    assemblers.get(dir)!.end();
    writers.get(dir)!.finished(dir === "C" ? 242 : 51, "0.0");
  }
  writers.get("S")!.connectError('connect ECONNREFUSED "quoted" é');
  return sink.buf.toString("utf8", 0, sink.pos);
}

function checkGolden(name: string, text: string): void {
  const fixture = new URL(`./fixtures/${name}.txt`, import.meta.url);
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(fixture, text);
  assert.equal(text, readFileSync(fixture, "utf8"));
}

for (const how of SEGMENTATIONS) {
  test(`-json: entries, finished and error objects, ${how}`, () =>
    checkGolden("json", render(how, false, true)));
  test(`-json -b: hex entries, ${how}`, () => checkGolden("json-binary", render(how, true, true)));
}

test("every JSON line parses, and its text is the text log's content", () => {
  const lines = render("random", false, true)
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const textEntries = render("random", false, false)
    .split("\n")
    .map((l) => /^([CS])-0-#(\d+) -> \[(.*)\]$/.exec(l))
    .filter((m) => m !== null);
  const entries = lines.filter((o) => o.type === "entry");
  assert.equal(entries.length, textEntries.length);
  entries.forEach((o, k) => {
    const m = textEntries[k]!;
    assert.deepEqual([o.dir, o.pos, o.text, o.conn], [m[1], Number(m[2]), m[3], 0]);
    assert.equal(o.time, "2024-01-02T03:04:05.067Z");
  });
  const finished = lines.filter((o) => o.type === "finished");
  assert.deepEqual(
    finished.map((o) => [o.dir, o.bytes, o.kbps]),
    [
      ["C", 242, 0],
      ["S", 51, 0],
    ],
  );
  assert.equal(lines.at(-1).message, 'connect ECONNREFUSED "quoted" é');
});

test("offsets past 31 bits and at every digit count are written exactly", () => {
  const time = new IsoTimestamp(() => 0);
  time.refresh();
  const offsets = [
    0,
    9,
    10,
    99_999,
    2_147_483_647,
    2_147_483_648,
    4_294_967_296 + 7,
    9_999_999_999,
    123_456_789_012_345,
  ];
  for (const offset of offsets) {
    const sink = new MemorySink();
    new JsonEntryWriter(sink, 0, "S", time).textEntry(Buffer.from("x"), 0, 1, offset);
    assert.equal(JSON.parse(sink.text()).pos, offset);
  }
});

test("each of the 256 byte values gives the text log's character, JSON-escaped where needed", () => {
  const time = new IsoTimestamp(() => 0);
  time.refresh();
  const all = Buffer.from(Array.from({ length: 256 }, (_, b) => b));
  const json = new MemorySink();
  new JsonEntryWriter(json, 0, "C", time).textEntry(all, 0, all.length, 0);
  const text = new MemorySink();
  new EntryWriter(text, "C-0-", "", null).textEntry(all, 0, all.length, 0);
  const shown = /^C-0-#000000 -> \[(.*)\]\n$/s.exec(text.text())![1];
  assert.equal(JSON.parse(json.text()).text, shown);
});
