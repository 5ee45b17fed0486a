// Runs SQL (a file, or stdin) on a bench PostgreSQL folder: starts its server, runs the SQL,
// prints each result's rows, stops the server. For the hand-made schema objects of a branch's
// migration on a folder its build must not migrate (the shared 1M folders, which stay at their schema).
//
//   node bench/pg-folder-sql.mjs <folder> <file.sql>
import { readFileSync } from "node:fs";
import { startBenchPostgres } from "./feed-service-postgres-corpus.mjs";

const [folder, file] = process.argv.slice(2);
const text = readFileSync(file ?? 0, "utf8");
const server = await startBenchPostgres(folder);
try {
  for (const statement of text
    .split(/;\s*\n/)
    .map((s) => s.trim())
    .filter(Boolean)) {
    const started = performance.now();
    const result = await server.query(statement);
    const ms = (performance.now() - started).toFixed(1);
    console.log(`-- ${ms} ms: ${statement.split("\n")[0].slice(0, 100)}`);
    for (const r of [result].flat()) for (const row of r.rows ?? []) console.log(JSON.stringify(row));
  }
} finally {
  await server.stop();
}
