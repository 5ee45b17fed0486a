// The feed server suite (feed-server.suite.ts) on SQLite; postgres-service.test.ts runs the same suite
// on PostgreSQL.
import { feedServerSuite } from "./feed-server.suite.js";
import { sqliteBackend } from "./test-backends.js";

feedServerSuite(sqliteBackend);
