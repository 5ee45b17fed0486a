/**
 * Every command of `feed-service`, one entry each; a new command is one file plus one entry here.
 * Commands are imported only when run: ingest pulls in parsers, sanitiser and HTTP client, which
 * `--help` or `categories list` should not wait for.
 */
import type { Command } from "./command.js";

export interface CommandEntry {
  readonly name: string;
  /** One line for the top-level help (the same as the command's own `summary`). */
  readonly summary: string;
  load(): Promise<Command>;
}

export const commandTable: readonly CommandEntry[] = [
  {
    name: "serve",
    summary: "serve the web pages, SOAP endpoint and WSDL, JSON API, output feeds and /metrics",
    load: async () => (await import("./serve-command.js")).serveCommand,
  },
  {
    name: "demo",
    summary: "load the deterministic demo corpus into an empty database",
    load: async () => (await import("./demo-command.js")).demoCommand,
  },
  {
    name: "start-demo",
    summary: "create ./data/feeds.db with demo data on first run, then serve it (npm start)",
    load: async () => (await import("./start-demo-command.js")).startDemoCommand,
  },
  {
    name: "feeds",
    summary: "list, add, edit, pause, refresh and remove feeds",
    load: async () => (await import("./feeds-command.js")).feedsCommand,
  },
  {
    name: "ingest",
    summary: "refresh the due feeds once (--all: every feed)",
    load: async () => (await import("./ingest-command.js")).ingestCommand,
  },
  {
    name: "opml",
    summary: "import and export subscriptions as OPML",
    load: async () => (await import("./opml-command.js")).opmlCommand,
  },
  {
    name: "posts",
    summary: "review and undo the copies merged into one story",
    load: async () => (await import("./posts-command.js")).postsCommand,
  },
  {
    name: "categories",
    summary: "list, add, rename and remove categories",
    load: async () => (await import("./categories-command.js")).categoriesCommand,
  },
  {
    name: "smart-categories",
    summary: "list, add, rename and remove smart categories (saved searches)",
    load: async () => (await import("./smart-categories-command.js")).smartCategoriesCommand,
  },
  {
    name: "languages",
    summary: "list, add, rename and remove languages",
    load: async () => (await import("./languages-command.js")).languagesCommand,
  },
  {
    name: "users",
    summary: "add, list, remove administrators and set their passwords",
    load: async () => (await import("./users-command.js")).usersCommand,
  },
  {
    name: "suggestions",
    summary: "list visitors' feed suggestions, approve or reject them",
    load: async () => (await import("./suggestions-command.js")).suggestionsCommand,
  },
  {
    name: "audit",
    summary: "print the audit log of administrators' changes, newest first",
    load: async () => (await import("./audit-command.js")).auditCommand,
  },
  {
    name: "migrate-data",
    summary: "copy a whole database between SQLite and PostgreSQL",
    load: async () => (await import("./migrate-data-command.js")).migrateDataCommand,
  },
];
