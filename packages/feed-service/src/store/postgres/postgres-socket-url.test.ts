/**
 * A `postgres://` URL with a `host` query parameter naming a directory reaches a local server
 * through its Unix-domain socket there (pg reads `host` from the query string over the URL's host,
 * and a host that starts with `/` is a socket directory, as in libpq:
 * https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-URIS): the store
 * opens, migrates, writes and reads through it, and none of its connections comes over TCP.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { startTestPostgres, type TestPostgres } from "../../test-support/test-postgres-server.js";
import { openStore } from "../open-store.js";

let server: TestPostgres;
let admin: pg.Client;

before(async () => {
  server = await startTestPostgres();
  admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
});
after(async () => {
  await admin?.end();
  await server?.stop();
});

describe("postgres database URL through a Unix-domain socket", () => {
  it("opens the store through the socket directory that host= names, with no connection over TCP", async () => {
    const { rows } = await admin.query<{ dirs: string }>(
      "SELECT current_setting('unix_socket_directories') AS dirs",
    );
    const dir = rows[0]!.dirs.split(",")[0]!.trim();
    assert.ok(dir.startsWith("/"), `a socket directory: ${dir}`);
    const url = await server.createDatabase("socket_url");
    const store = await openStore(`${url}?host=${encodeURIComponent(dir)}`);
    try {
      const category = await store.addCategory("Through the socket");
      assert.deepEqual(
        (await store.categories()).map((c) => c.categoryName),
        [category.categoryName],
      );
      // The store's connections to its database, seen by the server: all on the socket (a client
      // port of -1), at least one of them.
      const { rows: seen } = await admin.query<{ socket: number; tcp: number }>(
        `SELECT count(*) FILTER (WHERE client_port = -1)::int AS socket, count(*) FILTER (WHERE client_port <> -1)::int AS tcp
          FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'`,
        [new URL(url).pathname.slice(1)],
      );
      assert.ok(seen[0]!.socket > 0, "connections on the socket");
      assert.equal(seen[0]!.tcp, 0);
    } finally {
      await store.close();
    }
  });
});
