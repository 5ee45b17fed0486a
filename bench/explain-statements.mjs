// What the two EXPLAIN tools (postgres-search-explain.mjs, postgres-operator-explain.mjs) share:
// a connection opened as the store's read pool opens it, a recorder of the statements a search
// runs, and EXPLAIN (ANALYZE, BUFFERS) of each of them in order.

/**
 * A connection as the store's read pool opens it (postgres-connection.ts, from the build `dist`):
 * the build's own type parsers, so that 64-bit counts and sums (int8, numeric) arrive as numbers
 * as the plans add them up (as strings, `+` concatenates them and the explained run sizes its
 * tiers on the result); the read connections' settings (postgres-store.ts READ_SETTINGS).
 */
export async function openExplainClient(dist, url) {
  const { openPostgresPool } = await import(new URL("store/postgres/postgres-connection.js", dist).href);
  const pool = await openPostgresPool({
    url,
    max: 1,
    createSchema: false,
    settings: { work_mem: "32MB", enable_seqscan: "off", max_parallel_workers_per_gather: 0, jit: "off" },
  });
  const client = await pool.connect();
  return {
    client,
    close: async () => {
      client.release();
      await pool.end();
    },
  };
}

/** An Sql for the store's search functions that runs on `client` and records each statement. */
export function recordingSql(client) {
  const recorded = [];
  const sql = {
    query: async (sqlText, params) => {
      // rows() passes a named statement ({ name, text, values }).
      const record =
        typeof sqlText === "object" ? { sqlText: sqlText.text, params: sqlText.values } : { sqlText, params };
      recorded.push(record);
      const result = await client.query(sqlText, params);
      // Columns the pg driver would hand over as strings without the store's parsers.
      record.wide = result.fields
        .filter((f) => f.dataTypeID === 20 || f.dataTypeID === 1700)
        .map((f) => f.name);
      return result;
    },
  };
  return { sql, recorded };
}

/** Prints EXPLAIN (ANALYZE, BUFFERS) of each recorded statement (the whole plan with `plans`). */
export async function explainRecorded(client, recorded, plans) {
  for (const [i, { sqlText, params, wide }] of recorded.entries()) {
    if (/^\s*EXPLAIN/i.test(sqlText)) {
      console.log(`  #${i} (estimate) ${sqlText.replace(/\s+/g, " ").slice(0, 140)}`);
      continue;
    }
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) ${sqlText}`, params);
    const lines = rows.map((r) => r["QUERY PLAN"]);
    const time = lines.find((l) => l.startsWith("Execution Time")) ?? "";
    console.log(`  #${i} ${time}: ${sqlText.replace(/\s+/g, " ").slice(0, 240)}`);
    if (wide?.length) console.log(`     int8/numeric columns, read as numbers: ${wide.join(", ")}`);
    console.log(
      `     params ${JSON.stringify(params?.map((p) => (Array.isArray(p) && p.length > 8 ? `[${p.length} values]` : p)))}`,
    );
    if (plans) for (const l of lines) console.log(`     ${l}`);
  }
}
