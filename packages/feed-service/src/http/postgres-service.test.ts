// The end-to-end suites of the running service, unchanged, on a real PostgreSQL: one embedded
// server for this file, a fresh database for every service a suite starts. Each suite also runs on
// SQLite from its own test file.
import { after } from "node:test";
import { jsonApiSuite } from "../api/json-api.suite.js";
import { outputFeedsSuite } from "../feeds/output-feeds.suite.js";
import { postgresBackend } from "../test-support/test-backends.js";
import { feedServerSuite } from "./feed-server.suite.js";
import { responseCacheSuite } from "./response-cache.suite.js";
import { soapFaultsSuite } from "./soap-faults.suite.js";
import { soapOperationsSuite } from "./soap-operations.suite.js";

const backend = postgresBackend();
after(() => backend.stop());

soapOperationsSuite(backend);
soapFaultsSuite(backend);
feedServerSuite(backend);
responseCacheSuite(backend);
jsonApiSuite(backend);
outputFeedsSuite(backend);
