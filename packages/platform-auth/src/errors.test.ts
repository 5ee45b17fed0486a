import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ERROR_CODES } from "./errors.js";

test("every error code is documented in the README's error table", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  for (const code of Object.keys(ERROR_CODES)) {
    assert.match(
      readme,
      new RegExp(`^\\| \`${code}\` \\| .+ \\|$`, "m"),
      `${code} is missing from README.md`,
    );
  }
});
