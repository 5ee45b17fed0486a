/**
 * Opens (creating and migrating) the SQLite database named on the command line and closes it:
 * one of several processes that create one new file at once (sqlite-concurrency.test.ts).
 */
import { openSqliteStore } from "../store/sqlite/sqlite-store.js";

const store = openSqliteStore(process.argv[2]!);
await store.close();
