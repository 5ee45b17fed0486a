import { callCommand, testCommand } from "./cli/api-commands.js";
import { type CliIo, processIo } from "./cli/cli-io.js";
import { headersCommand, inspectCommand, jwtCommand, tokenCommand } from "./cli/credential-commands.js";
import { doctorCommand } from "./cli/doctor-command.js";
import { emulatorCommand } from "./cli/emulator-command.js";
import { reportError } from "./cli/exit-codes.js";
import { importCommand } from "./cli/import-command.js";
import { usageCommand } from "./cli/usage-command.js";

/** Usage text of the platform-auth command. */
export const usage = `usage: platform-auth <command> [options]

Obtains, caches and uses Adobe Experience Platform credentials.

commands:
  token [--json]             print a valid access token (minted only when the cache has none);
                             --json adds its expiry
  headers [--format F]       print the header set: curl (default), json or env (--json: json)
  test [--json]              run the test call (global classes); exit 0 when the credentials work
  doctor [--json]            check settings, identity service, token, test call and sandbox step
                             by step; say what each found and, when it fails, the fix
  import <file>              read the project JSON downloaded from the Developer Console into a
       [--profile NAME] [--credential NAME] [--force] [--json]
                             profile of the config file (mode 0600); prints no secret
  usage [--json] [--hours N] tokens minted and calls sent per credential and hour, by every
       [--calls-per-hour N] [--mints-per-hour N]
                             process of this user; warns from 80% of a budget you set
  call <METHOD> <path>       any Platform call with the credential headers added
       [--accept TYPE] [-H 'Name: value']... [--data JSON|@file] [--all]
  jwt [--json]               build and sign a JWT for the deprecated JWT method
  inspect [--json]           show the cached token's expiry, scopes and client id
  emulator                   run the local emulator (identity service + global classes)
       [--port N] [--expired-tokens] [--fail STATUS[:COUNT[:token|api|any]]]... [--retry-after S]
       [--delay MS] [--token-lifetime S] [--classes N] [--sandboxes a,b] [--count-mints]
       [--public-key-file F] [--rate-limit REQUESTS/SECONDS] [--revoke-after CALLS]
       [--retire-secret N] [--json]

options (every command):
  --auth-url URL  --base-url URL  --profile NAME  --sandbox NAME
  --client-id ID  --org-id ID  --scopes a,b  --auth-method oauth|jwt
  --technical-account-id ID  --private-key-file F  --metascopes a,b  --ca-file F
  --no-cache      do not use the on-disk token cache
  -v, --verbose   report mints, retries and request ids on standard error (the emulator:
                  one line per request it answered)
  -h, --help      show this help

The client secret is read from AEP_CLIENT_SECRET (or CLIENT_SECRET; several, during a rotation:
AEP_CLIENT_SECRETS=a,b), a profile in $XDG_CONFIG_HOME/platform-auth/config.json, or .env; never
from a flag.
exit codes: 0 ok, 1 other (emulator: address in use), 2 usage or configuration, 3 credentials
refused, 4 API error, 5 network`;

const COMMANDS: Record<string, (args: string[], io: CliIo) => Promise<number>> = {
  token: tokenCommand,
  headers: headersCommand,
  test: testCommand,
  doctor: doctorCommand,
  import: importCommand,
  usage: usageCommand,
  call: callCommand,
  jwt: jwtCommand,
  inspect: inspectCommand,
  emulator: emulatorCommand,
};

/**
 * Runs the CLI and resolves with its exit code.
 *
 * @example
 * process.exitCode = await main(["test", "--sandbox", "prod"]);
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    (command === undefined ? io.stderr : io.stdout)(`${usage}\n`);
    return command === undefined ? 2 : 0;
  }
  const run = COMMANDS[command];
  if (!run) {
    io.stderr(
      `platform-auth: unknown command ${JSON.stringify(command)}; commands: ${Object.keys(COMMANDS).join(", ")}\n`,
    );
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(`${usage}\n`);
    return 0;
  }
  try {
    return await run(rest, io);
  } catch (err) {
    return reportError(err, io.stderr, rest.includes("--verbose") || rest.includes("-v"));
  }
}
