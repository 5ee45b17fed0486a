#!/usr/bin/env node
import { main } from "../dist/cli.js";

// The exit is explicit: once the relay has closed and flushed its log (or given up on a stuck
// output), nothing left behind (a capture FIFO nobody opened, a lingering socket) may keep the
// process alive after the first SIGTERM or Ctrl-C. Standard output and error are synchronous
// for files, pipes and terminals on Linux, so nothing written is lost.
main(process.argv.slice(2)).then(
  (code) => process.exit(typeof code === "number" ? code : 0),
  (err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
