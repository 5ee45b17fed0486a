// Every error code the service raises is declared in errors.ts and documented in the README.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { feedServiceErrorCodes } from "./errors.js";

const src = fileURLToPath(new URL(".", import.meta.url));

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) sources(full, out);
    else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) out.push(full);
  }
  return out;
}

test("every code raised in the source is declared, and every declared code is in the README", () => {
  const declared = new Set(Object.keys(feedServiceErrorCodes));
  const used = new Set<string>();
  for (const file of sources(src)) {
    for (const m of readFileSync(file, "utf8").matchAll(/"(FEED_(?!SERVICE_)[A-Z_]+)"/g)) used.add(m[1]);
  }
  assert.ok(used.size >= 3, `found ${[...used].join(", ")}`);
  for (const code of used) assert.ok(declared.has(code), `${code} is raised but not declared in errors.ts`);
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  for (const [code, info] of Object.entries(feedServiceErrorCodes)) {
    const row = readme.split("\n").find((line) => line.startsWith(`| \`${code}\` | ${info.description} |`));
    assert.ok(
      row?.endsWith(`| ${info.exitCode} |`),
      `${code} is not in the README with its meaning and exit code`,
    );
  }
});
