import assert from "node:assert/strict";
import { test } from "node:test";
import { parseFaultFile } from "./fault-file.js";
import { describeFault, parseFault } from "./fault-spec.js";
import { parseRelayArguments } from "./relay-options.js";

test("every fault option parses as the spec writes it", () => {
  assert.deepEqual(parseFault("-delay", "c2s:200±10"), {
    kind: "delay",
    ms: 200,
    jitterMs: 10,
    dir: "c2s",
    every: 1,
    toxicity: 1,
    name: "delay_c2s",
  });
  assert.deepEqual(parseFault("-delay", "s2c:50+-5"), { ...parseFault("-delay", "s2c:50±5") });
  assert.match(JSON.stringify(parseFault("-delay", "s2c:50+-5")), /"jitterMs":5/);
  assert.deepEqual(parseFault("-rate", "s2c:100"), {
    kind: "rate",
    kibPerSecond: 100,
    dir: "s2c",
    every: 1,
    toxicity: 1,
    name: "rate_s2c",
  });
  assert.deepEqual(parseFault("-slice", "both:100±20/5@3"), {
    kind: "slice",
    bytes: 100,
    variation: 20,
    ms: 5,
    dir: "both",
    every: 3,
    toxicity: 1,
    name: "slice_both",
  });
  assert.equal(parseFault("-limit", "s2c:10000").kind, "limit");
  assert.equal(parseFault("-reset", "c2s:500@2").every, 2);
  assert.equal(parseFault("-blackhole", "s2c").kind, "blackhole");
  assert.deepEqual(parseFault("-refuse", "@4"), {
    kind: "refuse",
    dir: "both",
    every: 4,
    toxicity: 1,
    name: "refuse",
  });
  assert.equal(describeFault(parseFault("-slice", "c2s:100±20/5")), "100±20 bytes/5 ms");
  assert.equal(describeFault(parseFault("-rate", "s2c:64@2")), "64 KiB/s @2");
});

test("a bad fault value names the option, what it takes and what was given", () => {
  const cases: [string, string, RegExp][] = [
    [
      "-delay",
      "200",
      /-delay takes <dir>:<ms>\[±<jitter ms>\]\[@N\] \(<dir> is c2s, s2c or both\): the direction comes first; got "200"/,
    ],
    ["-delay", "up:200", /the direction comes first; got "up:200"/],
    ["-delay", "c2s:200±300", /<jitter ms> must be a whole number from 0 to 200; got "c2s:200±300"/],
    ["-rate", "s2c:0", /<KiB\/s> must be a number greater than 0/],
    ["-rate", "s2c:fast", /<KiB\/s> must be a number greater than 0/],
    ["-slice", "c2s:10±10", /<variation> must be a whole number from 0 to 9/],
    ["-limit", "s2c", /-limit takes <dir>:<bytes>\[@N\]/],
    ["-reset", "c2s:-1", /<ms> must be a whole number/],
    ["-refuse", "c2s", /-refuse takes @N/],
    ["-refuse", "@0", /N of @N must be a whole number from 1 to 1000000/],
  ];
  for (const [option, value, message] of cases) {
    assert.throws(
      () => parseFault(option, value),
      (e: Error & { code?: string }) => {
        assert.equal(e.code, "TCP_RELAY_BAD_ARGUMENT");
        assert.match(e.message, message);
        return true;
      },
    );
  }
  assert.throws(() => parseRelayArguments(["h", "1", "2", "-delay"]), /option -delay needs <dir>:<ms>/);
});

test("the command line collects faults in order, -faults and -control", () => {
  const args = parseRelayArguments([
    "example.com",
    "80",
    "8080",
    "-delay",
    "c2s:10",
    "-limit",
    "s2c:5",
    "-faults",
    "f.json",
    "-control",
    "8474",
  ]);
  assert.deepEqual(
    args.faults.map((f) => f.name),
    ["delay_c2s", "limit_s2c"],
  );
  assert.equal(args.faultsFile, "f.json");
  assert.equal(args.control, 8474);
  assert.throws(
    () => parseRelayArguments(["h", "1", "2", "-control", "0"]),
    /control port must be a port number/,
  );
});

test("a faults file holds the same options; anything else is refused with the file's name", () => {
  const faults = parseFaultFile(
    '{"delay": "c2s:200±10", "limit": ["s2c:10000@3", "c2s:5"], "refuse": "@5"}',
    "/x/f.json",
  );
  assert.deepEqual(
    faults.map((f) => `${f.kind}/${f.dir}/${f.every}`),
    ["delay/c2s/1", "limit/s2c/3", "limit/c2s/1", "refuse/both/5"],
  );
  for (const [text, message] of [
    ["[1]", /the faults file \/x\/f\.json must hold an object such as/],
    ["{", /the faults file \/x\/f\.json is not JSON/],
    [
      '{"latency": "c2s:1"}',
      /unknown key "latency" \(allowed: delay, rate, slice, limit, reset, blackhole, refuse\)/,
    ],
    ['{"delay": 200}', /"delay" takes a string <dir>:<ms>/],
    ['{"delay": "c2s"}', /the faults file \/x\/f\.json: -delay takes <dir>:<ms>/],
  ] as const) {
    assert.throws(() => parseFaultFile(text, "/x/f.json"), message);
  }
});
