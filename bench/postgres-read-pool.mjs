// A bench's pool opened as the store opens its read pool (postgres-store.ts READ_SETTINGS), through
// the openPostgresPool of the build under test, so that its plans are the service's.
export const READ_POOL_SETTINGS = {
  work_mem: "32MB",
  enable_seqscan: "off",
  max_parallel_workers_per_gather: 0,
  jit: "off",
};

/** `(onConnect?) => pool` of `max` connections to `url`, with the read pool's settings. */
export function readPoolOpener(openPostgresPool, url, max = 1) {
  return (onConnect) =>
    openPostgresPool({
      url,
      max,
      createSchema: false,
      settings: READ_POOL_SETTINGS,
      ...(onConnect ? { onConnect } : {}),
    });
}

/** Runs `use(client, pid)` on one connection of a new pool from `open` (closed afterwards). */
export async function withFreshConnection(open, onConnect, use) {
  const pool = await open(onConnect);
  try {
    const client = await pool.connect();
    try {
      const [{ pid }] = (await client.query("SELECT pg_backend_pid() AS pid")).rows;
      return await use(client, pid);
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
}
