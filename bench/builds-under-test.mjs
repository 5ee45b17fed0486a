// The builds a same-run comparison alternates: this checkout's packages/feed-service/dist ("new")
// and, with --baseline, another build's dist ("old", first), each with its package index's exports.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const loadBuild = async (name, folder) => ({
  name,
  folder,
  ...(await import(pathToFileURL(`${folder}/index.js`).href)),
});

/** [old, new] with a baseline dist folder, else [new]. */
export async function loadBuilds(baseline) {
  const builds = [await loadBuild("new", new URL("../packages/feed-service/dist", import.meta.url).pathname)];
  if (baseline) builds.unshift(await loadBuild("old", resolve(baseline)));
  return builds;
}

/**
 * The build's PostgreSQL store on `url` without migrating it (search-operators-bench.mjs's
 * --no-migrate): the store's read pools with openPostgresStore's READ_SETTINGS (postgres-store.ts)
 * and its deadline; `feed:` resolves through feeds(), as on stores without feedNames().
 */
export async function openUnmigrated(build, url) {
  const at = (file) => import(pathToFileURL(`${build.folder}/store/postgres/${file}`).href);
  const { PostgresStore } = await at("postgres-store.js");
  const { PostgresReadSide, resolveReadSideOptions } = await at("postgres-read-side.js");
  const { openPostgresPool } = await at("postgres-connection.js");
  const options = resolveReadSideOptions({});
  const pool = await openPostgresPool({ url, max: options.poolSize });
  const read = await openPostgresPool({
    url,
    max: options.poolSize,
    createSchema: false,
    settings: {
      work_mem: "32MB",
      enable_seqscan: "off",
      max_parallel_workers_per_gather: 0,
      jit: "off",
      statement_timeout: options.queryTimeoutMs,
    },
  });
  const store = new PostgresStore(pool, new PostgresReadSide(read, options));
  store.feedNames = undefined;
  return store;
}

/**
 * Runs `call(builds[i], inputs[i])` for each build, `rounds` times, the order swapped each round
 * so that neither build always runs on the other's warmed pages. Returns each build's results in
 * order, and whether every round's `ids` were equal across the two builds.
 */
export async function inTurns(builds, inputs, call, rounds) {
  const runs = builds.map(() => []);
  let same = true;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    const got = [];
    for (const i of order) {
      const r = await call(builds[i], inputs[i]);
      runs[i].push(r);
      got[i] = r.ids;
    }
    same &&= got[0] === got[1];
  }
  return { runs, same };
}
