// One story once through real ingest, on SQLite and on a real PostgreSQL (one embedded server).
import { after } from "node:test";
import { postgresBackend, sqliteBackend } from "../test-support/test-backends.js";
import { storyDedupeSuite } from "./story-dedupe.suite.js";

const postgres = postgresBackend();
after(() => postgres.stop());

storyDedupeSuite(sqliteBackend);
storyDedupeSuite(postgres);
