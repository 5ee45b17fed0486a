/** The default number of heavy reads at once, per dialect and per process of a cluster. */
import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { test } from "node:test";
import { defaultHeavyQueries } from "./query-limits.js";

test("SQLite: a query thread per core; PostgreSQL: one fewer; both shared among processes, at least 1", () => {
  const cores = availableParallelism();
  assert.equal(defaultHeavyQueries("sqlite"), cores);
  assert.equal(defaultHeavyQueries("postgres"), Math.max(1, cores - 1));
  assert.equal(defaultHeavyQueries("sqlite", 2), Math.max(1, Math.floor(cores / 2)));
  assert.equal(defaultHeavyQueries("postgres", 2), Math.max(1, Math.floor((cores - 1) / 2)));
  assert.equal(defaultHeavyQueries("sqlite", 10_000), 1);
  assert.equal(defaultHeavyQueries("postgres", 10_000), 1);
});
