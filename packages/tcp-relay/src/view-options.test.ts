// The options of the views beyond the original: each off by default, each with its value checked.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RelayError } from "./relay-error.js";
import { parseRelayArguments } from "./relay-options.js";

const base = ["example.com", "80", "8080"];

function badArgument(argv: string[], message: RegExp): void {
  assert.throws(
    () => parseRelayArguments([...base, ...argv]),
    (e: unknown) => e instanceof RelayError && e.code === "TCP_RELAY_BAD_ARGUMENT" && message.test(e.message),
  );
}

test("every view is off by default", () => {
  const a = parseRelayArguments(base);
  assert.equal(a.timestampMillis, false);
  assert.equal(a.json, false);
  assert.equal(a.http, false);
  assert.deepEqual([a.logSize, a.logCount, a.connLogs, a.pcap], [undefined, undefined, undefined, undefined]);
});

test("-tms turns on timestamps with milliseconds; -t alone keeps seconds", () => {
  const ms = parseRelayArguments([...base, "-tms"]);
  assert.equal(ms.timestamps, true);
  assert.equal(ms.timestampMillis, true);
  const s = parseRelayArguments([...base, "-t"]);
  assert.equal(s.timestampMillis, false);
  badArgument(["-tmss"], /unknown option "-tmss" \(allowed: .*-tms/);
});

test("-json (and --json) turns the log into JSON lines", () => {
  assert.equal(parseRelayArguments([...base, "-json"]).json, true);
  assert.equal(parseRelayArguments(["--json", ...base]).json, true);
});

test("-http with -stall <seconds>; -stall alone or with a bad number is refused", () => {
  const a = parseRelayArguments([...base, "-http"]);
  assert.deepEqual([a.http, a.stallSeconds], [true, undefined]);
  assert.equal(parseRelayArguments([...base, "-http", "-stall", "2.5"]).stallSeconds, 2.5);
  badArgument(["-stall", "5"], /-stall needs -http/);
  badArgument(["-http", "-stall"], /option -stall needs a number of seconds/);
  badArgument(
    ["-http", "-stall", "0"],
    /-stall takes a number of seconds greater than 0 and at most 86400; got "0"/,
  );
  badArgument(["-http", "-stall", "ten"], /got "ten"/);
});

test("-logsize (with k/m/g), -logcount and -connlogs; each needs what it works on", () => {
  const a = parseRelayArguments([
    ...base,
    "-logfile",
    "r.log",
    "-logsize",
    "10m",
    "-logcount",
    "3",
    "-connlogs",
    "conns",
  ]);
  assert.deepEqual([a.logSize, a.logCount, a.connLogs], [10 * 1024 * 1024, 3, "conns"]);
  assert.equal(parseRelayArguments([...base, "-logfile", "r.log", "-logsize", "4096"]).logSize, 4096);
  badArgument(["-logsize", "1k"], /-logsize needs -logfile/);
  badArgument(["-logfile", "r.log", "-logcount", "2"], /-logcount needs -logsize/);
  badArgument(["-logfile", "r.log", "-logsize", "0"], /-logsize takes a size in bytes .*got "0"/);
  badArgument(["-logfile", "r.log", "-logsize", "1t"], /got "1t"/);
  badArgument(["-logfile", "r.log", "-logsize", "1k", "-logcount", "0"], /from 1 to 1000; got "0"/);
  badArgument(["-connlogs"], /option -connlogs needs a folder/);
});

test("-pcap <file>", () => {
  assert.equal(parseRelayArguments([...base, "-pcap", "c.pcap"]).pcap, "c.pcap");
  badArgument(["-pcap"], /option -pcap needs a file name/);
});

test("every option beyond the original is in --help and in the README's option table", async () => {
  const { usage } = await import("./cli.js");
  const { readFileSync } = await import("node:fs");
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  for (const option of ["-tms", "-json", "-http", "-stall", "-logsize", "-logcount", "-connlogs", "-pcap"]) {
    assert.match(usage, new RegExp(`^  ${option} `, "m"), `${option} in --help`);
    assert.match(readme, new RegExp(`^\\| \`${option}[ \`]`, "m"), `${option} in the README`);
  }
});
