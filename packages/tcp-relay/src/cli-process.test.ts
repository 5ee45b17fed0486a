// The command line as a process: exit codes, one clear line for each problem, signals.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { spawnRelay } from "./test-support/relay-process.js";
import { dial, freePort, listenLocal, waitFor } from "./test-support/sockets.js";

const dir = mkdtempSync(join(tmpdir(), "tcp-relay-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[]) {
  const p = spawnRelay(args);
  const code = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

test("bad arguments: one line on stderr naming the problem, exit code 2, nothing started", async () => {
  const cases: [string[], RegExp][] = [
    [[], /missing <host> <remoteport> <localport>/],
    [["localhost", "80"], /missing <localport>/],
    [["localhost", "eighty", "8080"], /remoteport must be a port number from 1 to 65535; got "eighty"/],
    [["localhost", "80", "70000"], /localport must be a port number from 1 to 65535; got "70000"/],
    [["localhost", "80", "8080", "-z"], /unknown option "-z" \(allowed: /],
    [["no-such-host.invalid", "80", "8080"], /cannot resolve host "no-such-host.invalid"/],
    [
      ["localhost", "80", "8080", "-logfile", join(dir, "missing-dir", "x.log")],
      /cannot open log file .*x\.log/,
    ],
  ];
  const results = await Promise.all(cases.map(([args]) => run(args)));
  for (const [k, r] of results.entries()) {
    const [args, message] = cases[k]!;
    assert.equal(r.code, 2, `exit code for ${JSON.stringify(args)}`);
    assert.equal(r.stdout, "", "nothing started");
    assert.match(r.stderr, message);
    assert.match(r.stderr, /^tcp-relay: [^\n]+\n$/, "exactly one line");
  }
});

test("a local port already in use: one line, exit code 1", async () => {
  const busy = await listenLocal(() => {});
  const r = await run(["127.0.0.1", "80", String(busy.port)]);
  busy.close();
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`^tcp-relay: local port ${busy.port} is already in use\\n$`));
});

test("--version and --help exit 0", async () => {
  const [v, h] = await Promise.all([run(["--version"]), run(["-h"])]);
  assert.equal(v.code, 0);
  assert.match(v.stdout, /^tcp-relay \d+\.\d+\.\d+\n$/);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /-logfile <file>/);
});

test("SIGTERM closes open connections with their Finished lines, flushes the log, exits 0", async () => {
  const server = await listenLocal((s: Socket) => {
    s.on("error", () => {});
    s.write("hello from the server\nand a partial line");
  });
  const port = await freePort();
  const logFile = join(dir, "term.log");
  const relay = spawnRelay(["127.0.0.1", String(server.port), String(port), "-logfile", logFile, "-t"]);
  await waitFor(() => relay.stdout().includes("using logfile"), "the relay to start", 20_000);
  const client = await dial(port);
  client.on("error", () => {});
  client.write("open request without LF");
  await waitFor(() => client.received().length === 40, "the server's greeting");
  await waitFor(() => relay.stdout().includes("S-0-#000000"), "the first entry on the console");
  relay.child.kill("SIGTERM");
  assert.equal(await relay.exited, 0);
  server.close();
  client.destroy();
  const log = readFileSync(logFile, "utf8");
  const ts = String.raw`\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] `;
  for (const line of [
    String.raw`S-0-#000000 -> \[hello from the server\]`,
    String.raw`S-0-#000022 -> \[and a partial line\]`,
    String.raw`C-0-#000000 -> \[open request without LF\]`,
    String.raw`C-0-Finished: 23 bytes \(\d+\.\d kb/s\)`,
    String.raw`S-0-Finished: 40 bytes \(\d+\.\d kb/s\)`,
  ]) {
    assert.match(log, new RegExp(`^${ts}${line}$`, "m"));
  }
  assert.equal(relay.stdout().split("\n").slice(2).join("\n"), log.split("\n").slice(2).join("\n"));
});
