import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { constants, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { RING_BYTES } from "./pipe-ring.js";
import { PipeWriterDestination } from "./pipe-writer-destination.js";

const dir = mkdtempSync(join(tmpdir(), "tcp-relay-pipe-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A FIFO read by `cat` (whose output this process collects), and its write end, non-blocking as the relay opens it. */
async function fifoReadByCat(name: string): Promise<{ reader: ChildProcess; fd: number; out: () => Buffer }> {
  const fifo = join(dir, name);
  execFileSync("mkfifo", [fifo]);
  const reader = spawn("cat", [fifo], { stdio: ["ignore", "pipe", "inherit"] });
  const chunks: Buffer[] = [];
  reader.stdout!.on("data", (d: Buffer) => chunks.push(d));
  // ENXIO until cat has opened the FIFO for reading.
  for (;;) {
    try {
      const fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      return { reader, fd, out: () => Buffer.concat(chunks) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENXIO") throw error;
      await sleep(10);
    }
  }
}

test("a pipe written by its own thread gets every batch in order; a stalled reader holds the rest and the writer hears when it drains", async () => {
  const { reader, fd, out } = await fifoReadByCat("stalled");
  const pipe = new PipeWriterDestination("test pipe", fd);
  let drains = 0;
  pipe.attach({ onDrain: () => drains++, onError: (_d, e) => assert.fail(e) });
  // The reader stops: the pipe (64 KiB) and then the ring fill up, and the rest waits in a list.
  reader.kill("SIGSTOP");
  const batches: Buffer[] = [];
  const kept: boolean[] = [];
  for (let k = 0; k < 30; k++) {
    const batch = randomBytes(k % 3 === 2 ? 1024 * 1024 : 4096 + k);
    batches.push(batch);
    if (k % 2 === 0) kept.push(pipe.write(batch));
    else pipe.writeAll([batch, Buffer.alloc(0)]);
  }
  const total = batches.reduce((n, b) => n + b.length, 0);
  assert.ok(total > RING_BYTES + 64 * 1024, "more than the ring and the pipe hold");
  assert.equal(kept[0], false, "a batch copied into the ring is not kept: the caller may reuse it");
  assert.ok(kept.at(-1), "a batch that did not fit is kept until it goes into the ring");
  assert.ok(
    pipe.pendingBytes > RING_BYTES,
    `pending ${pipe.pendingBytes} counts the ring and the waiting list`,
  );
  reader.kill("SIGCONT");
  await pipe.close();
  assert.ok(drains > 0, "the writer was told that the ring had room again");
  assert.equal(pipe.pendingBytes, 0);
  await new Promise((resolve) => reader.once("close", resolve));
  assert.ok(out().equals(Buffer.concat(batches)), "the reader got every byte, in order");
});

test("a pipe whose reader has gone reports EPIPE once and takes no more batches", async () => {
  const { reader, fd } = await fifoReadByCat("gone");
  const pipe = new PipeWriterDestination("test pipe", fd);
  const errors: string[] = [];
  let failed: () => void = () => {};
  const reported = new Promise<void>((resolve) => {
    failed = resolve;
  });
  pipe.attach({
    onDrain: () => {},
    onError: (_d, e) => {
      errors.push((e as NodeJS.ErrnoException).code ?? e.message);
      failed();
    },
  });
  reader.kill("SIGKILL");
  await new Promise((resolve) => reader.once("close", resolve));
  pipe.write(Buffer.from("after the reader went"));
  await reported;
  assert.deepEqual(errors, ["EPIPE"]);
  assert.equal(pipe.write(Buffer.from("more")), false);
  await pipe.close();
});
