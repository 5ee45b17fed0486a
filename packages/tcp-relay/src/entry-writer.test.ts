import assert from "node:assert/strict";
import { test } from "node:test";
import { MemorySink } from "./byte-sink.js";
import { rate } from "./direction-pump.js";
import { EntryWriter, writeOffset } from "./entry-writer.js";
import { TimestampPrefix } from "./timestamp.js";

test("offsets: six digits at least, exact past 2^31 and 2^32", () => {
  for (const [value, text] of [
    [0, "000000"],
    [999_999, "999999"],
    [1_234_567, "1234567"],
    [2_147_483_647, "2147483647"],
    [3_000_000_001, "3000000001"],
    [12_345_678_901, "12345678901"],
  ] as const) {
    const buf = Buffer.alloc(32);
    const end = writeOffset(buf, 0, value);
    assert.equal(buf.toString("latin1", 0, end), text);
  }
});

test("indent and timestamp come before the label; notices carry both", () => {
  const sink = new MemorySink();
  const stamp = new TimestampPrefix(() => new Date(2024, 11, 31, 23, 59, 58).getTime());
  stamp.refresh();
  const w = new EntryWriter(sink, "S-7-", "        ", stamp);
  w.textEntry(Buffer.from("a\tb"), 0, 3, 42);
  w.notice("Finished: 3 bytes (0.0 kb/s)");
  assert.equal(
    sink.text(),
    "        [2024-12-31 23:59:58] S-7-#000042 -> [a.b]\n        [2024-12-31 23:59:58] S-7-Finished: 3 bytes (0.0 kb/s)\n",
  );
});

test("Finished rate: bytes / 1024 / seconds with one decimal, 0.0 when no time passed", () => {
  assert.equal(rate(2048, 1000), "2.0");
  assert.equal(rate(1536, 2000), "0.8");
  assert.equal(rate(5_000_000, 0), "0.0");
});
