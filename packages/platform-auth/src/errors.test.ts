import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ERROR_CODES } from "./errors.js";

test("every error code is documented in the README's error table with its meaning and exit code", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  for (const [code, { description, exitCode }] of Object.entries(ERROR_CODES)) {
    assert.ok(
      readme.includes(`| \`${code}\` | ${description} | ${exitCode} |`),
      `${code} is missing from README.md`,
    );
  }
});
