// The SOAP operations suite (soap-operations.suite.ts) on SQLite; postgres-service.test.ts runs
// the same suite on PostgreSQL.
import { soapOperationsSuite } from "./soap-operations.suite.js";
import { sqliteBackend } from "./test-backends.js";

soapOperationsSuite(sqliteBackend);
