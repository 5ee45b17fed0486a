import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const bin = fileURLToPath(new URL("../bin/tcp-relay.js", import.meta.url));

test("the built bin prints usage on --help and exits 0", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [bin, "--help"]);
  assert.match(stdout, /^usage: tcp-relay /);
});
