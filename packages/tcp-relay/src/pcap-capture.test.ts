// -pcap checked by Debian's tshark: following each TCP stream of the capture gives back exactly
// the bytes relayed both ways (IPv4 and IPv6, segments over 64 KiB, half-close, reset), the
// checksums verify, and tshark's TCP analysis finds nothing wrong with the sequence numbers.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { startRelay } from "./relay-server.js";
import { missingTool, run, toolAvailable } from "./test-support/external-tool.js";
import { ended, waitFor } from "./test-support/sockets.js";

const dir = mkdtempSync(join(tmpdir(), "tcp-relay-pcap-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const tshark = toolAvailable("tshark", ["--version"]);

/** `tshark -z follow,tcp,raw,<stream>`: what each side sent, and the two endpoints. */
async function follow(file: string, stream: number) {
  const { stdout } = await run("tshark", ["-r", file, "-q", "-z", `follow,tcp,raw,${stream}`], {
    maxBuffer: 256 * 1024 * 1024,
  });
  const nodes = [...stdout.matchAll(/^Node \d: (.*)$/gm)].map((m) => m[1]);
  const client: string[] = [];
  const server: string[] = [];
  for (const line of stdout.split("\n")) {
    if (/^\t[0-9a-f]+$/.test(line)) server.push(line.slice(1));
    else if (/^[0-9a-f]+$/.test(line)) client.push(line);
  }
  return { nodes, client: Buffer.from(client.join(""), "hex"), server: Buffer.from(server.join(""), "hex") };
}

async function problems(file: string): Promise<string> {
  const { stdout } = await run("tshark", [
    "-r",
    file,
    "-o",
    "tcp.check_checksum:TRUE",
    "-o",
    "ip.check_checksum:TRUE",
    "-Y",
    "tcp.checksum.status == 0 || ip.checksum.status == 0 || tcp.analysis.flags",
  ]);
  return stdout;
}

/** A server that answers every chunk with its bytes reversed, and at the client's FIN with a tail. */
async function reversingServer(host: string): Promise<Server & { port: number }> {
  const server = createServer({ allowHalfOpen: true }, (socket: Socket) => {
    socket.on("data", (c: Buffer) => socket.write(Buffer.from(c).reverse()));
    socket.on("end", () => socket.end(Buffer.from("after your FIN")));
    socket.on("error", () => {});
  });
  await new Promise<void>((done) => server.listen(0, host, done));
  return Object.assign(server, { port: (server.address() as AddressInfo).port });
}

for (const host of ["127.0.0.1", "::1"]) {
  test(`-pcap (${host}): tshark follows every stream and gets exactly the relayed bytes`, async (t) => {
    if (!(await tshark)) return missingTool(t, "tshark", "Debian's tshark package");
    const server = await reversingServer(host);
    const file = join(dir, `capture-${host === "::1" ? "v6" : "v4"}.pcap`);
    const relay = await startRelay({
      host,
      remotePort: server.port,
      localPort: 0,
      bind: host,
      quiet: true,
      pcap: file,
    });
    const sent: Buffer[] = [];
    const received: Buffer[] = [];
    try {
      // 0: big random data both ways (segments over 65,000 bytes), then a half-close.
      // 1: a small text exchange. 2: a client that resets the connection.
      for (let n = 0; n < 3; n++) {
        const client = connect({ host, port: relay.port, allowHalfOpen: true });
        const parts: Buffer[] = [];
        client.on("data", (c: Buffer) => parts.push(c));
        client.on("error", () => {});
        await new Promise((done) => client.once("connect", done));
        const payload = n === 0 ? randomBytes(300_000) : Buffer.from(`hello ${n}\r\n`);
        client.write(payload);
        await waitFor(() => Buffer.concat(parts).length >= payload.length, "the answer");
        if (n < 2) {
          client.end();
          await ended(client as Socket);
        } else {
          client.resetAndDestroy();
          await new Promise((done) => client.once("close", done));
        }
        sent.push(payload);
        received.push(Buffer.concat(parts));
      }
      await waitFor(() => relay.accepted === 3, "three connections");
    } finally {
      await relay.close();
      server.close();
    }
    for (let n = 0; n < 3; n++) {
      const stream = await follow(file, n);
      assert.ok(stream.client.equals(sent[n]!), `stream ${n}: client bytes`);
      assert.ok(stream.server.equals(received[n]!), `stream ${n}: server bytes`);
      assert.equal(stream.nodes.length, 2);
      assert.match(stream.nodes[1]!, new RegExp(`:${server.port}$`), "the server's real port");
    }
    assert.ok(received[0]!.toString("latin1").endsWith("after your FIN"), "the reply after the FIN is in");
    assert.equal(await problems(file), "", "no bad checksum, no TCP analysis flag");
    const { stdout } = await run("tshark", [
      "-r",
      file,
      "-Y",
      "tcp.flags.reset == 1",
      "-T",
      "fields",
      "-e",
      "tcp.stream",
    ]);
    assert.equal(stdout.trim(), "2", "the reset connection ends with RST");
  });
}
