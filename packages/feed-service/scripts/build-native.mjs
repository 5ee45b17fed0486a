// Builds the store's SQLite extension (native/sampled_bm25.c) as a loadable library in
// native/build/, against the headers of the SQLite that better-sqlite3 bundles: sqlite3ext.h and
// fts5.h are cut out of its amalgamation, so the extension always matches the library it is
// loaded into. Runs on install (the root `prepare`) and before the tests; needs a C compiler,
// as better-sqlite3 itself does when it builds from source. `CC` overrides the compiler.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const native = join(here, "..", "native");
const build = join(native, "build");
const include = join(build, "include");
const require = createRequire(join(here, "..", "package.json"));
const sqliteDir = join(dirname(require.resolve("better-sqlite3/package.json")), "deps", "sqlite3");
const amalgamation = readFileSync(join(sqliteDir, "sqlite3.c"), "latin1");

/** The text of one header the amalgamation embeds, between its begin and end markers. */
function embeddedHeader(name) {
  const begin = new RegExp(`^/\\*+ Begin file ${name.replace(".", "\\.")} \\*+/$`, "m").exec(amalgamation);
  const end = new RegExp(`^/\\*+ End of ${name.replace(".", "\\.")} \\*+/$`, "m").exec(amalgamation);
  if (!begin || !end || end.index < begin.index) {
    throw new Error(`${name} was not found in ${join(sqliteDir, "sqlite3.c")}`);
  }
  return amalgamation.slice(begin.index + begin[0].length, end.index);
}

mkdirSync(include, { recursive: true });
// The amalgamation comments out the headers' own #include of sqlite3.h; it is put back.
for (const name of ["sqlite3ext.h", "fts5.h"]) {
  writeFileSync(join(include, name), `#include "sqlite3.h"\n${embeddedHeader(name)}`, "latin1");
}
const output = join(build, "sampled_bm25.so");
const cc = process.env.CC || "cc";
try {
  execFileSync(
    cc,
    [
      "-O2",
      "-fPIC",
      "-shared",
      "-Wall",
      "-I",
      include,
      "-I",
      sqliteDir,
      "-o",
      output,
      join(native, "sampled_bm25.c"),
      "-lm",
    ],
    { stdio: "inherit" },
  );
} catch (error) {
  process.stderr.write(
    error.code === "ENOENT"
      ? `feed-service: no C compiler '${cc}' to build the SQLite extension (Debian: apt-get install gcc; or set CC).\n`
      : `feed-service: building the SQLite extension with '${cc}' failed (see the compiler's messages above).\n`,
  );
  process.exit(1);
}
