// The feed server suite (feed-server.suite.ts) on SQLite; postgres-service.test.ts runs the same suite
// on PostgreSQL.

import { sqliteBackend } from "../test-support/test-backends.js";
import { feedServerSuite } from "./feed-server.suite.js";

feedServerSuite(sqliteBackend);
