import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { StreamDestination } from "./log-destinations.js";
import { LogWriter } from "./log-writer.js";

/** A destination that takes `delayMs` per write, recording the batches it got. */
function slowDestination(delayMs: number) {
  const batches: Buffer[] = [];
  const stream = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _enc, done) {
      batches.push(Buffer.from(chunk));
      if (delayMs === 0) done();
      else setTimeout(done, delayMs);
    },
  });
  return { stream, batches };
}

test("entries of one turn go out as one batch at the end of the turn", async () => {
  const d = slowDestination(0);
  const log = new LogWriter([new StreamDestination("test", d.stream, true)]);
  for (let k = 0; k < 100; k++) log.writeText(`line ${k}\n`);
  assert.equal(d.batches.length, 0, "nothing is written before the turn ends");
  await sleep(5);
  assert.equal(d.batches.length, 1);
  assert.equal(d.batches[0]!.toString().split("\n").length, 101);
  await log.close();
});

test("a full batch is written at once, and the buffer rest is reused without overwriting it", async () => {
  const d = slowDestination(0);
  const log = new LogWriter([new StreamDestination("test", d.stream, true)], { batchBytes: 8192 });
  const line = `${"x".repeat(99)}\n`;
  for (let k = 0; k < 300; k++) log.writeText(line);
  assert.ok(d.batches.length >= 3, `got ${d.batches.length} batches`);
  await log.close();
  assert.equal(Buffer.concat(d.batches).toString(), line.repeat(300));
});

test("appended buffers go out in order between the batch parts, in one corked write, not copied", async () => {
  const written: Buffer[][] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      written.push([chunk]);
      done();
    },
    writev(chunks, done) {
      written.push(chunks.map((c) => c.chunk as Buffer));
      done();
    },
  });
  const log = new LogWriter([new StreamDestination("test", stream, true)]);
  const payload = Buffer.alloc(5000, "p");
  log.writeText("head 1\n");
  log.append(payload);
  log.writeText("head 2\n");
  log.append(payload);
  log.writeText("tail\n");
  await sleep(5);
  assert.equal(written.length, 1, "one write for the turn");
  assert.equal(written[0]!.length, 5);
  assert.equal(written[0]![1], payload, "the appended buffer itself");
  assert.equal(Buffer.concat(written[0]!).toString(), `head 1\n${payload}head 2\n${payload}tail\n`);
  await log.close();
});

test("a slow destination makes the log congested until it drains, and waiters resume then", async () => {
  const d = slowDestination(2);
  const log = new LogWriter([new StreamDestination("slow", d.stream, true)], {
    batchBytes: 4096,
    highWaterMark: 16 * 1024,
  });
  for (let k = 0; k < 64; k++) log.writeText(`${"y".repeat(1023)}\n`);
  log.flush();
  assert.equal(log.congested, true);
  const resumed = new Promise<void>((resume) => log.waitForDrain({ resumeFromLog: resume }));
  await resumed;
  assert.equal(log.congested, false);
  await log.close();
  assert.equal(Buffer.concat(d.batches).length, 64 * 1024);
});

test("a failing destination is reported once and dropped; the others still get the log", async () => {
  const good = slowDestination(0);
  const bad = new Writable({
    write(_c, _e, done) {
      done(Object.assign(new Error("no space left"), { code: "ENOSPC" }));
    },
  });
  const errors: string[] = [];
  const log = new LogWriter(
    [new StreamDestination("bad file", bad, true), new StreamDestination("good", good.stream, true)],
    { onError: (d, e) => errors.push(`${d.name}: ${(e as NodeJS.ErrnoException).code}`) },
  );
  log.writeText("one\n");
  await sleep(5);
  log.writeText("two\n");
  await log.close();
  assert.deepEqual(errors, ["bad file: ENOSPC"]);
  assert.equal(Buffer.concat(good.batches).toString(), "one\ntwo\n");
});
