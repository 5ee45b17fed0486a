/**
 * `serve --workers 2` as real processes: the primary forks two workers that share one port of
 * 127.0.0.1, both answer requests from one database (a SQLite file; a PostgreSQL server started by
 * the test), a worker killed with SIGKILL is replaced, and SIGTERM to the primary stops every
 * process with exit code 0.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { openStore } from "../store/open-store.js";
import { startTestPostgres, type TestPostgres } from "../test-support/test-postgres-server.js";
import { CLUSTER_ARGV_ENV } from "./serve-cluster.js";

const dir = mkdtempSync(join(tmpdir(), "feed-cluster-"));
let postgres: TestPostgres;
before(async () => {
  postgres = await startTestPostgres();
});
after(async () => {
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The pids of a process's children (Linux /proc). */
function childPids(pid: number): number[] {
  try {
    const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    return tasks === "" ? [] : tasks.split(/\s+/).map(Number);
  } catch {
    return [];
  }
}

// Generous: each process (and, on SQLite, each of its query threads) loads the TypeScript sources
// through tsx, which takes many seconds on a loaded two-core machine.
function waitFor(read: () => string, pattern: RegExp, what: string, ms = 120_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const match = pattern.exec(read());
      if (match) {
        clearInterval(poll);
        resolve(match);
      } else if (Date.now() - started > ms) {
        clearInterval(poll);
        reject(new Error(`timed out waiting for ${what}; output so far:\n${read()}`));
      }
    }, 50);
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

for (const dialect of ["sqlite", "postgres"] as const) {
  test(`serve --workers 2 shares one port, replaces a dead worker and stops on SIGTERM (${dialect})`, async () => {
    const database = dialect === "sqlite" ? join(dir, "feeds.db") : await postgres.createDatabase("cluster");
    const store = await openStore(database);
    const feed = await store.addFeed({ feedUrl: "https://cluster.test/feed", feedName: "Cluster" });
    await store.applyFeedUpdate(feed.feedId, {
      fetchState: {},
      posts: [
        {
          guid: "p1",
          link: "https://cluster.test/p1",
          title: "One",
          excerpt: "",
          content: "",
          publishedAt: 1,
          updatedAt: null,
          seenAt: 1,
          languageId: 1,
        },
      ],
    });
    const [post] = await store.recentPosts({ limit: 1, offset: 0, languageIds: null });
    await store.close();

    const entry = new URL("./serve-entry.ts", import.meta.url).pathname;
    const argv = [
      "--workers",
      "2",
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      "--database",
      database,
      "--no-ingest",
    ];
    const primary = spawn(process.execPath, ["--conditions=source", "--import", "tsx", entry], {
      env: { ...process.env, [CLUSTER_ARGV_ENV]: JSON.stringify(argv) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    primary.stdout!.on("data", (c: Buffer) => {
      out += c;
    });
    primary.stderr!.on("data", (c: Buffer) => {
      err += c;
    });
    const primaryExit = exited(primary);
    try {
      const [, port] = await waitFor(() => out, /2 workers listening on 127\.0\.0\.1:(\d+)/, "both workers");
      const base = `http://127.0.0.1:${port}`;
      const workers = childPids(primary.pid!);
      assert.equal(workers.length, 2, `two worker processes: ${workers}`);

      // Both workers answer: many fresh connections, round-robin across the two processes.
      for (let i = 0; i < 10; i++) {
        const health = await fetch(`${base}/healthz`, { headers: { connection: "close" } });
        assert.equal(health.status, 200);
        await health.arrayBuffer();
        const click = await fetch(`${base}/click/${post!.postId}`, { redirect: "manual" });
        assert.equal(click.status, 302);
        assert.equal(click.headers.get("location"), "https://cluster.test/p1");
      }

      process.kill(workers[0]!, "SIGKILL");
      await waitFor(() => err, /worker \d exited \(signal SIGKILL\); starting a new one/, "the restart");
      await waitFor(
        () => (childPids(primary.pid!).filter((p) => !workers.includes(p)).length === 1 ? "replaced" : ""),
        /replaced/,
        "a new worker process",
      );
      await waitFor(
        () => out,
        /\[worker \d\] feed-service listening[\s\S]*\[worker \d\] feed-service listening[\s\S]*\[worker \d\] feed-service listening/,
        "the new worker to listen",
      );
      const health = await fetch(`${base}/healthz`);
      assert.equal(health.status, 200);
      await health.arrayBuffer();

      const current = childPids(primary.pid!);
      primary.kill("SIGTERM");
      assert.equal(await primaryExit, 0, err);
      for (const pid of current) {
        assert.throws(() => process.kill(pid, 0), /ESRCH/, `worker ${pid} stopped`);
      }
      assert.match(out, /SIGTERM, stopping 2 workers/);
    } finally {
      if (primary.exitCode === null) primary.kill("SIGKILL");
    }
  });
}
