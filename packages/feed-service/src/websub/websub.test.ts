// The WebSub suite on SQLite and on a real PostgreSQL (one embedded server for this file).
import { after } from "node:test";
import { postgresBackend, sqliteBackend } from "../test-support/test-backends.js";
import { webSubSuite } from "./websub.suite.js";

const postgres = postgresBackend();
after(() => postgres.stop());

webSubSuite(sqliteBackend);
webSubSuite(postgres);
