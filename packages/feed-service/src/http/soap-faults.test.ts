// The SOAP faults suite (soap-faults.suite.ts) on SQLite; postgres-service.test.ts runs the same suite
// on PostgreSQL.
import { soapFaultsSuite } from "./soap-faults.suite.js";
import { sqliteBackend } from "./test-backends.js";

soapFaultsSuite(sqliteBackend);
