import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ERROR_CODES } from "./errors.js";
import { FAILURE_REASONS } from "./failure-reasons.js";

test("every error code is documented in the README's error table with its meaning and exit code", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  for (const [code, { description, exitCode }] of Object.entries(ERROR_CODES)) {
    assert.ok(
      readme.includes(`| \`${code}\` | ${description} | ${exitCode} |`),
      `${code} is missing from README.md`,
    );
  }
});

test("every failure reason is documented in the README with what happened and its fix", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  for (const [reason, { meaning, fix }] of Object.entries(FAILURE_REASONS)) {
    assert.ok(
      readme.includes(`| \`${reason}\` | ${meaning} | ${fix} |`),
      `${reason} is missing from README.md`,
    );
  }
});
