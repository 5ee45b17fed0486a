/**
 * How `serve` and `start-demo` start and stop, through the built bin (`npx tsc -b` first) as an
 * operator runs them: a port in use ends the process at once with exit 1 and says so; SIGTERM and
 * SIGINT stop it with exit 0 within a few seconds, idle, with a request in flight (answered when
 * it completes within the grace, cut when its client stalls), and with a background ingest pass
 * stuck on a feed that never answers (its fetch cut, the feed left due and unclaimed); on SQLite
 * and on PostgreSQL.
 */
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openStore } from "../store/open-store.js";
import { startTestPostgres, type TestPostgres } from "../test-support/test-postgres-server.js";

const bin = fileURLToPath(new URL("../../bin/feed-service.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "feed-serve-life-"));
/** A stop must end the process well inside this; the bug it guards against hung for good. */
const stopBoundMs = 12_000;

let postgres: TestPostgres;
before(async () => {
  postgres = await startTestPostgres();
});
after(async () => {
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  port: number;
  output: () => string;
}

function startBin(args: string[], cwd = dir): Promise<Running> {
  const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (c) => {
    out += c;
  });
  child.stderr!.on("data", (c) => {
    out += c;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 60_000);
    const poll = setInterval(() => {
      const m = /listening on [^\n]*:(\d+)\n/.exec(out);
      if (m && /health:/.test(out)) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), output: () => out });
      }
    }, 20);
    child.once("exit", (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`exited ${code}: ${out}`));
    });
  });
}

/** The exit code and how long the process took to end after `start`; kills it past the bound. */
function exitOf(child: ChildProcess, start = Date.now()): Promise<{ code: number | null; ms: number }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve({ code: child.exitCode, ms: Date.now() - start });
    const killer = setTimeout(() => child.kill("SIGKILL"), stopBoundMs * 3);
    child.once("exit", (code) => {
      clearTimeout(killer);
      resolve({ code, ms: Date.now() - start });
    });
  });
}

async function stopWith(running: Running, signal: NodeJS.Signals) {
  const exit = exitOf(running.child);
  running.child.kill(signal);
  return exit;
}

function run(args: string[], cwd = dir): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd, timeout: 120_000 }, (error, _out, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stderr });
    });
  });
}

/** A TCP port of 127.0.0.1 held by another listener for the length of `work`. */
async function withPortTaken<T>(work: (port: number) => Promise<T>): Promise<T> {
  const holder: Server = createServer();
  await new Promise<void>((r) => holder.listen(0, "127.0.0.1", r));
  try {
    return await work((holder.address() as { port: number }).port);
  } finally {
    await new Promise((r) => holder.close(r));
  }
}

const soapGetCategories =
  '<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/"><Body><getCategories xmlns="http://webservices"/></Body></Envelope>';

/** Sends a SOAP request's head and the first bytes of its body; the rest is up to the caller. */
function partialRequest(port: number) {
  const socket = connect(port, "127.0.0.1");
  let answer = "";
  socket.setEncoding("utf8");
  socket.on("data", (c) => {
    answer += c;
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((r) => socket.once("close", () => r()));
  const body = Buffer.from(soapGetCategories);
  socket.write(
    `POST /webservices/FeedAggregator HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml\r\nSOAPAction: ""\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  socket.write(body.subarray(0, 10));
  return { socket, rest: body.subarray(10), answer: () => answer, closed };
}

for (const dialect of ["sqlite", "postgres"] as const) {
  const database = async (name: string) =>
    dialect === "sqlite" ? join(dir, `${name}.db`) : postgres.createDatabase(name.replaceAll("-", "_"));

  test(`serve on a port in use exits 1 at once, naming the address (${dialect})`, async () => {
    const db = await database("busy");
    await withPortTaken(async (port) => {
      const child = spawn(
        process.execPath,
        [bin, "serve", "--host", "127.0.0.1", "--port", String(port), "--database", db],
        {
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let err = "";
      child.stderr!.on("data", (c) => {
        err += c;
      });
      const { code, ms } = await exitOf(child);
      assert.equal(code, 1, err);
      assert.match(
        err,
        new RegExp(`feed-service: cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)\\n`),
      );
      assert.ok(ms < stopBoundMs, `exited after ${ms} ms`);
    });
  });

  test(`serve stops with exit 0 on SIGTERM and on SIGINT when idle (${dialect})`, async () => {
    const db = await database("idle");
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const running = await startBin(["serve", "--host", "127.0.0.1", "--port", "0", "--database", db]);
      // serve creates a SQLite file that does not exist yet, and says so the first time only.
      const created = `feed-service: created database ${db}\n`;
      if (dialect === "sqlite") assert.equal(running.output().includes(created), signal === "SIGTERM");
      const answer = await fetch(`http://127.0.0.1:${running.port}/healthz`);
      assert.equal(answer.status, 200);
      const { code, ms } = await stopWith(running, signal);
      assert.equal(code, 0, running.output());
      assert.ok(ms < stopBoundMs, `${signal}: exited after ${ms} ms`);
      assert.match(running.output(), new RegExp(`feed-service: ${signal}, stopping\\n`));
    }
  });
}

test("a request still uploading at SIGTERM is answered when it completes in time, cut when it stalls; exit 0", async () => {
  const db = join(dir, "inflight.db");
  const running = await startBin([
    "serve",
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--no-ingest",
    "--database",
    db,
  ]);
  const finishing = partialRequest(running.port);
  const stalled = partialRequest(running.port);
  // Both requests have reached the server (a health check on a third connection answers after them).
  await new Promise((r) => setTimeout(r, 200));
  assert.equal((await fetch(`http://127.0.0.1:${running.port}/healthz`)).status, 200);
  const exit = exitOf(running.child);
  running.child.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 300));
  finishing.socket.write(finishing.rest);
  await finishing.closed;
  // A whole answer, not a reset: the service is stopping (Fastify's 503 while closing) and the
  // connection closes after it, so the client knows to retry elsewhere or later.
  assert.match(finishing.answer(), /^HTTP\/1\.1 503 Service Unavailable\r\n/);
  assert.match(finishing.answer(), /\r\nConnection: close\r\n/i);
  await stalled.closed;
  assert.equal(stalled.answer(), "", "the stalled request was answered");
  const { code, ms } = await exit;
  assert.equal(code, 0, running.output());
  // Far below the 30 s a stalled request may otherwise take before the server gives up on it.
  assert.ok(ms < stopBoundMs, `exited after ${ms} ms`);
});

test("SIGINT during a background ingest pass stuck on a feed that never answers: the fetch is cut, the feed left as it was, exit 0", async () => {
  let asked!: () => void;
  const fetched = new Promise<void>((r) => {
    asked = r;
  });
  // A feed server that, once the feed is added, takes each request and never answers (the
  // fetch's own timeouts are 15-30 s); feeds add meets a 503 and adds it with --force.
  let hold = false;
  const silent = createHttpServer((_req, res) => {
    if (hold) asked();
    else res.writeHead(503).end();
  });
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  try {
    const db = join(dir, "stuck.db");
    const feedUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}/feed.xml`;
    // The feed is on 127.0.0.1: the operator allows private fetches (--allow-private-fetch).
    const local = "--allow-private-fetch";
    const added = await run([
      "feeds",
      "add",
      feedUrl,
      "--name",
      "Silent",
      "--force",
      local,
      "--database",
      db,
    ]);
    assert.equal(added.code, 0, added.stderr);
    hold = true;
    const running = await startBin([
      "serve",
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--no-warm",
      local,
      "--database",
      db,
    ]);
    await fetched;
    const { code, ms } = await stopWith(running, "SIGINT");
    assert.equal(code, 0, running.output());
    assert.ok(ms < stopBoundMs, `exited after ${ms} ms`);
    assert.match(
      running.output(),
      /feed-service: SIGINT, stopping\ningest: 1 feed: 0 updated, 0 not modified, 0 failed, 0 deferred, 1 stopped;/,
    );
    assert.doesNotMatch(running.output(), /still fetching/);
    // No failure was recorded for a fetch the stop cut, and the pass released its claim: another
    // worker (one that does not take over dead processes' claims) can claim the feed at once.
    const store = await openStore(db);
    try {
      const [feed] = await store.adminFeeds();
      assert.equal(feed!.errorCount, 0);
      assert.equal(feed!.lastErrorCode, null);
      const claimed = await store.claimDueFeeds(Date.now(), {
        worker: "another-host/1/test",
        leaseMs: 60_000,
        limit: 10,
        isAbandoned: () => false,
      });
      assert.deepEqual(
        claimed.map((f) => f.feedId),
        [feed!.feedId],
      );
    } finally {
      await store.close();
    }
  } finally {
    silent.closeAllConnections();
    silent.close();
  }
});

test("start-demo and serve --workers 2 on a port in use exit 1 at once", async () => {
  const cwd = mkdtempSync(join(dir, "demo-"));
  const demo = await run(["demo", "--posts", "40", "--now", "2026-01-15T12:00:00Z"], cwd);
  assert.equal(demo.code, 0, demo.stderr);
  await withPortTaken(async (port) => {
    for (const args of [
      ["start-demo", "--port", String(port)],
      ["serve", "--workers", "2", "--host", "127.0.0.1", "--port", String(port), "--no-warm"],
    ]) {
      const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
      let err = "";
      child.stderr!.on("data", (c) => {
        err += c;
      });
      const { code, ms } = await exitOf(child);
      assert.equal(code, 1, `${args.join(" ")}: ${err}`);
      assert.match(err, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)`), args[0]);
      assert.ok(ms < stopBoundMs * 2, `${args.join(" ")} exited after ${ms} ms`);
    }
  });
});

test("Ctrl-C to serve --workers 2 in a terminal (SIGINT to the whole group): every worker stops cleanly, exit 0", async () => {
  const db = join(dir, "group.db");
  const args = ["serve", "--workers", "2", "--host", "127.0.0.1", "--port", "0", "--no-ingest", "--no-warm"];
  // Its own process group, as a terminal's foreground job has; a signal to the group reaches the
  // primary and both workers at once.
  const child = spawn(process.execPath, [bin, ...args, "--database", db], {
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  child.stdout!.on("data", (c) => {
    out += c;
  });
  child.stderr!.on("data", (c) => {
    out += c;
  });
  const exit = exitOf(child);
  const started = Date.now();
  while (!/2 workers listening on/.test(out)) {
    assert.ok(Date.now() - started < 60_000 && child.exitCode === null, `never listened: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const stopAt = Date.now();
  process.kill(-child.pid!, "SIGINT");
  const { code } = await exit;
  assert.equal(code, 0, out);
  assert.ok(Date.now() - stopAt < stopBoundMs, `exited after ${Date.now() - stopAt} ms`);
  assert.equal(out.match(/\[worker \d\] feed-service: SIG(INT|TERM), stopping\n/g)?.length, 2, out);
  assert.doesNotMatch(out, /did not stop cleanly/);
});
