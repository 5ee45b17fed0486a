/**
 * The command line of a command that takes options but no arguments (demo, ingest, serve,
 * migrate-data, start-demo): parsed, `--help` answered with the usage, and any stray argument
 * refused with a message naming the command and the argument.
 */
import { badArgument } from "../errors.js";
import type { CommandContext } from "./command.js";
import { type OptionSpecs, type ParsedCommandLine, parseCommandLine } from "./command-line.js";

/**
 * Parses `argv` against `specs`; prints `usage` and returns undefined on `--help` (the command
 * then exits 0), throws FEED_BAD_ARGUMENT on any positional argument.
 *
 * @example
 * const values = parseOptionsOnly("demo", usage, argv, options, context);
 * if (!values) return 0;
 */
export function parseOptionsOnly(
  command: string,
  usage: string,
  argv: string[],
  specs: OptionSpecs,
  context: CommandContext,
): ParsedCommandLine["values"] | undefined {
  const { values, positionals } = parseCommandLine(argv, specs, context.env);
  if (values.help) {
    context.output.out(`${usage}\n`);
    return undefined;
  }
  if (positionals.length > 0)
    throw badArgument(`${command} takes no arguments; got ${JSON.stringify(positionals[0])}.`);
  return values;
}
