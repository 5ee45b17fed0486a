// Runs the command line from the TypeScript sources (under tsx), as the built bin does from dist:
// the tests spawn it to see exit codes, signals and the relay's own memory use.
import { main } from "../cli.js";

process.exitCode = await main(process.argv.slice(2));
