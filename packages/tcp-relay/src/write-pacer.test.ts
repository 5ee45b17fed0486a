// When a log file's queued batches are written: at once from 64 KiB, else after a short wait that
// gathers a quiet relay's small batches into one write; everything at once when closing.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { FileDestination } from "./log-destinations.js";
import { RotatingFileDestination } from "./rotating-file-destination.js";
import { WRITE_DELAY_MS, WRITE_NOW_BYTES, WritePacer } from "./write-pacer.js";

const dir = mkdtempSync(join(tmpdir(), "tcp-relay-pacer-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("small batches start one write after the delay; 64 KiB or a closing destination, at once", async () => {
  let starts = 0;
  const pacer = new WritePacer(() => starts++);
  pacer.schedule(100);
  pacer.schedule(200);
  assert.equal(starts, 0, "a small batch waits");
  await sleep(WRITE_DELAY_MS + 30);
  assert.equal(starts, 1, "one write for both small batches");
  pacer.schedule(300);
  pacer.schedule(WRITE_NOW_BYTES);
  assert.equal(starts, 2, "enough queued: written at once");
  await sleep(WRITE_DELAY_MS + 30);
  assert.equal(starts, 2, "the timer of the small batch was cancelled by the write");
  pacer.schedule(5);
  pacer.closing();
  await sleep(WRITE_DELAY_MS + 30);
  assert.equal(starts, 2, "closing cancels the wait (the destination writes what is queued itself)");
  pacer.schedule(1);
  assert.equal(starts, 3, "while closing nothing waits");
});

for (const kind of ["plain", "rotating"] as const) {
  test(`a ${kind} log file gets a quiet relay's batches within the delay, in order, and all on close`, async () => {
    const path = join(dir, `${kind}.log`);
    const file =
      kind === "plain"
        ? new FileDestination("log file", await open(path, "a"))
        : await RotatingFileDestination.open(path, 1024 * 1024, 2);
    file.attach({ onDrain: () => {}, onError: (_d, e) => assert.fail(e) });
    file.write(Buffer.from("one\n"));
    file.write(Buffer.from("two\n"));
    assert.equal(readFileSync(path, "utf8"), "", "not written on the event loop's turn");
    for (let waited = 0; readFileSync(path, "utf8") !== "one\ntwo\n"; waited += 10) {
      assert.ok(
        waited < 2000,
        `written within the delay (file: ${JSON.stringify(readFileSync(path, "utf8"))})`,
      );
      await sleep(10);
    }
    file.write(Buffer.from("three\n"));
    await file.close();
    assert.equal(readFileSync(path, "utf8"), "one\ntwo\nthree\n", "close writes what still waits");
    assert.equal(file.pendingBytes, 0);
  });
}
