import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { relayErrorCodes } from "./relay-error.js";

test("every error code is documented in the README with its exit code", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  for (const [code, exit] of Object.entries(relayErrorCodes)) {
    assert.match(readme, new RegExp(`^\\| \`${code}\` \\| ${exit} \\|`, "m"), code);
  }
});
