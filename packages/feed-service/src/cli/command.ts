/** The shape of one CLI command and what it runs with; commands are listed in command-table.ts. */
import type { Env } from "./command-line.js";
import type { Output } from "./output.js";

export interface CommandContext {
  readonly env: Env;
  readonly output: Output;
  /** Resolved when the process is asked to stop (SIGINT/SIGTERM); long-running commands await it. */
  readonly stopSignal: Promise<string>;
}

export interface Command {
  readonly name: string;
  /** One line for the top-level help. */
  readonly summary: string;
  /** Full usage text, printed for `--help`. */
  readonly usage: string;
  /** Returns the exit code: 0 success, 1 failure at run time, 2 usage. */
  run(argv: string[], context: CommandContext): Promise<number>;
}

/** For command groups (`feeds add|list|remove`): the action names and their handlers. */
export type Actions = Readonly<Record<string, (argv: string[], context: CommandContext) => Promise<number>>>;
