// The SOAP operations suite (soap-operations.suite.ts) on SQLite; postgres-service.test.ts runs
// the same suite on PostgreSQL.

import { sqliteBackend } from "../test-support/test-backends.js";
import { soapOperationsSuite } from "./soap-operations.suite.js";

soapOperationsSuite(sqliteBackend);
