import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { relayErrorCodes } from "./relay-error.js";

test("every error code is documented in the README with its exit code and description", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  for (const [code, { exitCode, description }] of Object.entries(relayErrorCodes)) {
    assert.ok(readme.includes(`| \`${code}\` | ${exitCode} | ${description} |`), code);
  }
});
