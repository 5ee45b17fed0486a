import assert from "node:assert/strict";
import { test } from "node:test";
import { RelayError } from "./relay-error.js";
import { parseRelayArguments } from "./relay-options.js";

function badArgument(argv: string[], message: RegExp): void {
  assert.throws(
    () => parseRelayArguments(argv),
    (e: unknown) => e instanceof RelayError && e.code === "TCP_RELAY_BAD_ARGUMENT" && message.test(e.message),
  );
}

test("the classic command line with every option", () => {
  const a = parseRelayArguments([
    "example.com",
    "80",
    "8080",
    "-q",
    "-b",
    "-t",
    "-logfile",
    "x.log",
    "-i",
    "4",
  ]);
  assert.deepEqual(
    { ...a },
    {
      host: "example.com",
      remotePort: 80,
      localPort: 8080,
      quiet: true,
      binary: true,
      timestamps: true,
      timestampMillis: false,
      logFile: "x.log",
      indent: 4,
      json: false,
      http: false,
      stallSeconds: undefined,
      logSize: undefined,
      logCount: undefined,
      connLogs: undefined,
      pcap: undefined,
      bind: undefined,
      faults: [],
      faultsFile: undefined,
      control: undefined,
      har: undefined,
      harBody: undefined,
      help: false,
      version: false,
    },
  );
});

test("a bare -i means 16 slots, -i 0 none, and no -i none", () => {
  assert.equal(parseRelayArguments(["h", "1", "2", "-i"]).indent, 16);
  assert.equal(parseRelayArguments(["h", "1", "2", "-i", "-t"]).indent, 16);
  assert.equal(parseRelayArguments(["h", "1", "2", "-i", "0"]).indent, 0);
  assert.equal(parseRelayArguments(["h", "1", "2"]).indent, 0);
  badArgument(["h", "1", "2", "-i", "100000"], /from 0 to 256; got "100000"/);
});

test("GNU-style aliases, -bind, IPv6 hosts, options before the positionals", () => {
  const a = parseRelayArguments([
    "--quiet",
    "--log-file",
    "a.log",
    "::1",
    "443",
    "8443",
    "--bind",
    "127.0.0.1",
  ]);
  assert.equal(a.quiet, true);
  assert.equal(a.logFile, "a.log");
  assert.equal(a.host, "::1");
  assert.equal(a.bind, "127.0.0.1");
  assert.equal(parseRelayArguments(["--help"]).help, true);
  assert.equal(parseRelayArguments(["--version"]).version, true);
});

test("bad arguments name what was wrong and what is allowed", () => {
  badArgument([], /missing <host> <remoteport> <localport>/);
  badArgument(["h"], /missing <remoteport>/);
  badArgument(["h", "80"], /missing <localport>/);
  badArgument(["h", "http", "8080"], /remoteport must be a port number from 1 to 65535; got "http"/);
  badArgument(["h", "80", "0"], /localport .* got "0"/);
  badArgument(["h", "80", "65536"], /got "65536"/);
  badArgument(
    ["h", "80", "8080", "-x"],
    /unknown option "-x" \(allowed: -q, -b, -t, -tms, -logfile <file>, -i \[n\], -json/,
  );
  badArgument(["h", "80", "8080", "-logfile"], /-logfile needs a file name/);
  badArgument(["h", "80", "8080", "extra"], /unexpected argument "extra"/);
});
