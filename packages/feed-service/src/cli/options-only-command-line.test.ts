import assert from "node:assert/strict";
import { test } from "node:test";
import { runCaptured } from "../test-support/captured-run.js";

const cli = runCaptured;

test("options-only commands refuse a stray argument by name and answer --help with their usage", async () => {
  for (const command of ["demo", "ingest", "serve", "migrate-data", "start-demo"]) {
    const stray = await cli([command, "extra"]);
    assert.equal(stray.code, 2, command);
    assert.equal(stray.stdout, "", command);
    assert.match(
      stray.stderr,
      new RegExp(`^feed-service ${command}: ${command} takes no arguments; got "extra"\\.\\n$`),
    );
    const help = await cli([command, "--help"]);
    assert.equal(help.code, 0, command);
    assert.match(help.stdout, new RegExp(`^usage: feed-service ${command}`));
  }
});
