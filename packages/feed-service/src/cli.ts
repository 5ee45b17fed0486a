/**
 * The `feed-service` command line (spec §6): looks the command up in the command table and maps
 * errors to exit codes (0 success, 1 failure at run time, 2 usage) with a one-line reason on stderr.
 */

import type { CommandContext } from "./cli/command.js";
import type { Env } from "./cli/command-line.js";
import { commandTable } from "./cli/command-table.js";
import { type Output, processOutput } from "./cli/output.js";
import { errorCodeInfo, FeedServiceError } from "./errors.js";

/** Usage text of the feed-service command. */
export const usage = `usage: feed-service <command> [options]

commands:
${commandTable.map((c) => `  ${c.name.padEnd(18)} ${c.summary}`).join("\n")}

Every command takes --help. Global option: --database <path|sqlite:path|postgres://…>
(env FEED_SERVICE_DATABASE, default ./data/feeds.db). Commands that only read refuse a
database that does not exist; commands that write create it and say so.
Exit codes: 0 success, 1 failure at run time, 2 usage.`;

export interface MainOptions {
  readonly env?: Env;
  readonly output?: Output;
  /** Resolves when a long-running command should stop; defaults to SIGINT/SIGTERM. */
  readonly stopSignal?: Promise<string>;
}

function processStopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve(signal);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

/**
 * Runs one command line and returns its exit code.
 *
 * @example
 * process.exitCode = await main(["categories", "list", "--json"]);
 */
export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  const output = options.output ?? processOutput;
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    output.out(`${usage}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = commandTable.find((c) => c.name === name);
  if (!command) {
    output.err(
      `feed-service: unknown command ${JSON.stringify(name)}; run feed-service --help for the list\n`,
    );
    return 2;
  }
  let stopSignal = options.stopSignal;
  const context: CommandContext = {
    env: options.env ?? process.env,
    output,
    get stopSignal() {
      stopSignal ??= processStopSignal();
      return stopSignal;
    },
  };
  try {
    return await (await command.load()).run(rest, context);
  } catch (error) {
    if (error instanceof FeedServiceError) {
      output.err(`feed-service ${name}: ${error.message.split("\n")[0]}\n`);
      return errorCodeInfo(error.code).exitCode;
    }
    output.err(
      `feed-service ${name}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}\n`,
    );
    return 1;
  }
}
