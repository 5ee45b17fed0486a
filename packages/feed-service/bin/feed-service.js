#!/usr/bin/env node
import { main } from "../dist/cli.js";

// The process ends when the command does: a command closes what it opened, and serve gives up on
// background work that outlives its stop grace, which must not keep the process alive after it.
// Exits once what was written to stdout and stderr has been handed to the system.
function exit(code) {
  process.exitCode = code;
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
}

main(process.argv.slice(2)).then(
  (code) => exit(typeof code === "number" ? code : 0),
  (err) => {
    console.error(err instanceof Error ? err.message : String(err));
    exit(1);
  },
);
