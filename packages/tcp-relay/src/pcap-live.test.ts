// `-pcap -` and `-pcap <fifo>` read live by Debian's tshark: while the relay still runs, the
// packets tshark has read from the pipe give back every byte relayed, both ways, in order, over
// IPv4 and IPv6.
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { missingTool, toolAvailable } from "./test-support/external-tool.js";
import { freePort, waitFor } from "./test-support/sockets.js";

const dir = mkdtempSync(join(tmpdir(), "tcp-relay-pcap-live-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const tshark = toolAvailable("tshark", ["--version"]);
const cli = fileURLToPath(new URL("./test-support/run-cli.ts", import.meta.url));

/** A server that answers each chunk with its bytes reversed. */
async function reversingServer(host: string): Promise<Server & { port: number }> {
  const server = createServer((socket: Socket) => {
    socket.on("data", (c: Buffer) => socket.write(Buffer.from(c).reverse()));
    socket.on("error", () => {});
  });
  await new Promise<void>((done) => server.listen(0, host, done));
  return Object.assign(server, { port: (server.address() as AddressInfo).port });
}

/** tshark's per-packet lines (`stream`, `source port`, `payload hex`) as each side's bytes per stream. */
function streams(output: string): Map<string, Buffer> {
  const parts = new Map<string, string[]>();
  for (const line of output.split("\n")) {
    const [stream, port, payload] = line.split("\t");
    if (payload === undefined || payload === "") continue;
    const key = `${stream}/${port}`;
    if (!parts.has(key)) parts.set(key, []);
    parts.get(key)!.push(payload.replaceAll(":", ""));
  }
  return new Map([...parts].map(([k, hex]) => [k, Buffer.from(hex.join(""), "hex")]));
}

const TSHARK_FIELDS = [
  "-l",
  "-n",
  "-T",
  "fields",
  "-e",
  "tcp.stream",
  "-e",
  "tcp.srcport",
  "-e",
  "tcp.payload",
];

/** Runs one conversation through the relay and checks tshark's live view of it, the relay still running. */
async function conversation(
  host: string,
  relayPort: number,
  server: Server & { port: number },
  read: () => string,
) {
  const sent = randomBytes(300_000);
  const client = connect({ host, port: relayPort });
  const received: Buffer[] = [];
  client.on("data", (c: Buffer) => received.push(c));
  await new Promise((done) => client.once("connect", done));
  for (let k = 0; k < sent.length; k += 10_000) client.write(sent.subarray(k, k + 10_000));
  await waitFor(() => Buffer.concat(received).length === sent.length, "the answers", 30_000);
  const clientPort = String(client.localPort);
  const answered = Buffer.concat(received);
  await waitFor(
    () => {
      const s = streams(read());
      const up = s.get(`0/${clientPort}`);
      const down = s.get(`0/${server.port}`);
      return up?.length === sent.length && down?.length === answered.length;
    },
    "tshark to have read every packet from the pipe",
    30_000,
  );
  const s = streams(read());
  assert.ok(s.get(`0/${clientPort}`)!.equals(sent), "client to server, byte for byte");
  assert.ok(s.get(`0/${server.port}`)!.equals(answered), "server to client, byte for byte");
  client.destroy();
}

/** Resolves to the child's exit code; taken at spawn, so that an early exit is not missed. */
function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => child.once("exit", (code) => done(code)));
}

/**
 * Waits up to `ms` for an exit; past it the process group is killed and the test fails saying
 * what did not end, rather than hanging until the test's own timeout with the processes left over.
 */
async function endedWithin(child: ChildProcess, exited: Promise<number | null>, what: string, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((done) => {
    timer = setTimeout(() => done("late"), ms);
  });
  const code = await Promise.race([exited, late]);
  clearTimeout(timer);
  if (code !== "late") return code;
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {}
  throw new Error(`${what} did not end within ${ms} ms; killed`);
}

for (const host of ["127.0.0.1", "::1"]) {
  test(`-pcap - | tshark -i - (${host}): tshark follows the streams live, byte for byte`, {
    timeout: 90_000,
  }, async (t) => {
    if (!(await tshark)) return missingTool(t, "tshark", "Debian's tshark");
    const server = await reversingServer(host);
    t.after(() => server.close());
    const port = await freePort();
    const errors = join(dir, `relay-${host.replaceAll(":", "")}.err`);
    const relay = [
      "--import",
      "tsx",
      cli,
      host,
      String(server.port),
      String(port),
      "-bind",
      host,
      "-pcap",
      "-",
    ];
    const quote = (a: string) => `'${a}'`;
    const pipeline = `${[process.execPath, ...relay].map(quote).join(" ")} 2>${quote(errors)} | tshark -i - ${TSHARK_FIELDS.map(quote).join(" ")}`;
    const child = spawn("sh", ["-c", pipeline], { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let tsharkSaid = "";
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      tsharkSaid += d;
    });
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (s: string) => {
      out += s;
    });
    try {
      await waitFor(
        () => existsSync(errors) && readFileSync(errors, "utf8").includes("starting proxy"),
        "the relay to start",
        30_000,
      );
      // The console's lines went to standard error, leaving standard output to the capture.
      assert.match(readFileSync(errors, "utf8"), /^starting proxy for .* on port \d+\n/);
      await conversation(host, port, server, () => out);
    } finally {
      // SIGTERM to the relay alone (the shell's node child): it exits 0, closing the pipe, and
      // tshark then ends, and with it the pipeline, with tshark's status.
      const relayPid = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .find((pid) => pid !== "" && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("run-cli"));
      const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
      if (relayPid !== undefined) process.kill(Number(relayPid), "SIGTERM");
      else process.kill(-child.pid!, "SIGTERM");
      assert.equal(
        await exited,
        0,
        `the relay stopped, the pipe closed, tshark ended cleanly: ${tsharkSaid}`,
      );
    }
  });
}

test("-pcap <fifo>: tshark reading the FIFO follows the stream live, byte for byte", {
  timeout: 120_000,
}, async (t) => {
  if (!(await tshark)) return missingTool(t, "tshark", "Debian's tshark");
  const server = await reversingServer("127.0.0.1");
  t.after(() => server.close());
  const fifo = join(dir, "capture.fifo");
  execFileSync("mkfifo", [fifo]);
  const reader = spawn("tshark", ["-i", fifo, ...TSHARK_FIELDS], {
    detached: true,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const readerExited = exitOf(reader);
  let out = "";
  reader.stdout!.setEncoding("utf8").on("data", (s: string) => {
    out += s;
  });
  const port = await freePort();
  const relay = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      cli,
      "127.0.0.1",
      String(server.port),
      String(port),
      "-bind",
      "127.0.0.1",
      "-q",
      "-pcap",
      fifo,
    ],
    { detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const relayExited = exitOf(relay);
  let console = "";
  relay.stdout!.setEncoding("utf8").on("data", (s: string) => {
    console += s;
  });
  try {
    // tshark loads its dissectors before it opens the FIFO: seconds, more on a loaded machine.
    await waitFor(
      () => console.includes("starting proxy"),
      "the relay to start (once tshark opened the FIFO)",
      45_000,
    );
    await conversation("127.0.0.1", port, server, () => out);
  } finally {
    process.kill(-relay.pid!, "SIGTERM");
    const relayCode = await endedWithin(relay, relayExited, "the relay, after SIGTERM", 10_000);
    // The relay's exit closed the FIFO's only writer: tshark reads its end and exits.
    await endedWithin(reader, readerExited, "tshark, after the FIFO's writer closed", 15_000);
    assert.equal(relayCode, 0);
  }
});
