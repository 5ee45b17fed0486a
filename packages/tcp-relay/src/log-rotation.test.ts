// -logsize/-logcount and -connlogs through real relays under concurrent load: the rotated files,
// read oldest first, are exactly what the console showed (no entry lost, split or reordered), and
// each connection's own file holds exactly that connection's lines.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { type RelayOptions, startRelay } from "./relay-server.js";
import { seededRandom } from "./test-support/segmentations.js";
import { dial, ended, listenLocal, Transcript } from "./test-support/sockets.js";

const dir = mkdtempSync(join(tmpdir(), "tcp-relay-rotation-"));
after(() => rmSync(dir, { recursive: true, force: true }));

async function echoServer() {
  return listenLocal((socket: Socket) => {
    socket.pipe(socket);
  });
}

/** `clients` connections at once, each sending `lines` lines of random length, echoed back. */
async function load(options: Partial<RelayOptions>, clients: number, lines: number): Promise<string> {
  const server = await echoServer();
  const consoleOut = new Transcript();
  const relay = await startRelay({
    host: "127.0.0.1",
    remotePort: server.port,
    localPort: 0,
    bind: "127.0.0.1",
    console: consoleOut,
    ...options,
  });
  try {
    await Promise.all(
      Array.from({ length: clients }, async (_, k) => {
        const random = seededRandom(k + 1);
        const client = await dial(relay.port);
        let text = "";
        for (let j = 0; j < lines; j++) text += `${k}:${j}:${"x".repeat(Math.floor(random() * 200))}\n`;
        for (let i = 0; i < text.length; i += 1000) client.write(text.slice(i, i + 1000));
        client.end();
        await ended(client);
        assert.equal(client.received().toString(), text);
      }),
    );
  } finally {
    await relay.close();
    server.close();
  }
  return consoleOut.text();
}

function rotatedFiles(path: string): string[] {
  const names = readdirSync(dir).filter((f) => f.startsWith(`${path.slice(dir.length + 1)}.`));
  const numbers = names.map((f) => Number(f.slice(f.lastIndexOf(".") + 1))).sort((a, b) => b - a);
  return [...numbers.map((k) => `${path}.${k}`), path];
}

test("-logsize 8k under load: the rotated files, oldest first, are exactly the console's log", async () => {
  const logFile = join(dir, "busy.log");
  const shown = await load({ logFile, logSize: 8192, logCount: 1000 }, 12, 400);
  const files = rotatedFiles(logFile);
  assert.ok(files.length > 50, `${files.length} files`);
  const joined = files.map((f) => readFileSync(f, "latin1")).join("");
  assert.equal(joined, shown, "nothing lost, split or reordered");
  for (const f of files.slice(0, -1)) {
    const text = readFileSync(f, "latin1");
    assert.ok(statSync(f).size <= 8192, `${f} is within the size`);
    assert.ok(text.endsWith("\n"), `${f} ends with a whole entry`);
  }
  const lineStarts = shown.split("\n").filter((l) => / -> \[\d+:\d+:/.test(l)).length;
  assert.equal(lineStarts, 12 * 400 * 2, "every line, both ways, starts an entry");
});

test("-logcount 2 keeps name, name.1 and name.2: the newest part of the log", async () => {
  const logFile = join(dir, "kept.log");
  const shown = await load({ logFile, logSize: 4096, logCount: 2 }, 3, 200);
  assert.ok(!existsSync(`${logFile}.3`));
  const kept = [`${logFile}.2`, `${logFile}.1`, logFile].map((f) => readFileSync(f, "latin1")).join("");
  assert.ok(shown.endsWith(kept), "the kept files are the end of the log");
  assert.ok(kept.length > 4096 * 2 - 400);
});

test("an entry longer than -logsize gets a file of its own, whole", async () => {
  const logFile = join(dir, "tiny.log");
  const shown = await load({ logFile, logSize: 40, logCount: 1000, quiet: false }, 1, 5);
  const files = rotatedFiles(logFile);
  assert.equal(files.map((f) => readFileSync(f, "latin1")).join(""), shown);
  for (const f of files) {
    const lines = readFileSync(f, "latin1")
      .split("\n")
      .filter((l) => l !== "");
    assert.ok(lines.length <= 1 || statSync(f).size <= 40, `${f}: one long entry or within the size`);
  }
});

test("-connlogs: each connection's own file holds exactly its lines, in order", async () => {
  const connDir = join(dir, "conns");
  const shown = await load({ connLogs: connDir }, 5, 100);
  for (let n = 0; n < 5; n++) {
    const own = readFileSync(join(connDir, `${n}.log`), "latin1");
    const expected = shown
      .split("\n")
      .filter((l) => new RegExp(`^[CS]-${n}-`).test(l))
      .map((l) => `${l}\n`)
      .join("");
    assert.equal(own, expected, `connection ${n}`);
    assert.match(own, new RegExp(`C-${n}-Finished: \\d+ bytes`));
  }
});

test("-connlogs with -q and no log file: the connection files are the only log", async () => {
  const connDir = join(dir, "quiet-conns");
  const shown = await load({ connLogs: connDir, quiet: true, http: true }, 2, 3);
  assert.doesNotMatch(shown, /C-0-/);
  const own = readFileSync(join(connDir, "1.log"), "latin1");
  assert.match(own, /^H-1-Warning: not HTTP/);
  assert.match(own, /^C-1-#000000 -> \[1:0:x*\]$/m);
});
