import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { FileDestination } from "./log-destinations.js";

const dir = mkdtempSync(join(tmpdir(), "tcp-relay-dest-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("a log file queues every batch for the thread pool and writes them all in order", async () => {
  const path = join(dir, "mixed.log");
  const file = new FileDestination("log file", await open(path, "a"));
  let drains = 0;
  file.attach({ onDrain: () => drains++, onError: (_d, e) => assert.fail(e) });
  const batches: Buffer[] = [];
  const retained: boolean[] = [];
  for (let k = 0; k < 40; k++) {
    const batch = randomBytes(k % 3 === 2 ? 64 * 1024 : 100 + k);
    batches.push(batch);
    retained.push(file.write(batch));
  }
  assert.ok(
    retained.every((kept) => kept),
    "every batch is kept until the thread pool has written it",
  );
  assert.ok(file.pendingBytes > 0, "queued bytes are reported");
  await file.close();
  assert.equal(file.pendingBytes, 0);
  assert.ok(drains > 0);
  assert.ok(readFileSync(path).equals(Buffer.concat(batches)), "the file holds every batch in order");
});

test("a log file whose opening fails reports it on the first write, and a silent one just closes", async () => {
  const missing = join(dir, "no-such-folder", "x.log");
  const errors: string[] = [];
  const written = new FileDestination("log file x", open(missing, "a"));
  written.attach({ onDrain: () => {}, onError: (_d, e) => errors.push((e as NodeJS.ErrnoException).code!) });
  written.write(Buffer.from("entry\n"));
  const silent = new FileDestination("log file y", open(missing, "a"));
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(errors, ["ENOENT"]);
  await written.close();
  await silent.close();
});
