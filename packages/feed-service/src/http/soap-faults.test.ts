// The SOAP faults suite (soap-faults.suite.ts) on SQLite; postgres-service.test.ts runs the same suite
// on PostgreSQL.

import { sqliteBackend } from "../test-support/test-backends.js";
import { soapFaultsSuite } from "./soap-faults.suite.js";

soapFaultsSuite(sqliteBackend);
