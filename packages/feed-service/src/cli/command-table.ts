/**
 * Every command of `feed-service`, one line each; a new command is one file plus one line here.
 */
import { categoriesCommand } from "./categories-command.js";
import type { Command } from "./command.js";
import { demoCommand } from "./demo-command.js";
import { feedsCommand } from "./feeds-command.js";
import { ingestCommand } from "./ingest-command.js";
import { languagesCommand } from "./languages-command.js";
import { opmlCommand } from "./opml-command.js";
import { serveCommand } from "./serve-command.js";
import { smartCategoriesCommand } from "./smart-categories-command.js";
import { startDemoCommand } from "./start-demo-command.js";

export const commandTable: readonly Command[] = [
  serveCommand,
  demoCommand,
  startDemoCommand,
  feedsCommand,
  ingestCommand,
  opmlCommand,
  categoriesCommand,
  smartCategoriesCommand,
  languagesCommand,
];
