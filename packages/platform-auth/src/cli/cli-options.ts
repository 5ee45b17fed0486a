import { parseArgs } from "node:util";
import { PlatformAuthError } from "../errors.js";
import { type ClientEvent, PlatformClient } from "../platform-client.js";
import type { SettingsInput } from "../settings.js";
import { defaultTokenCachePath } from "../xdg-paths.js";
import type { CliIo } from "./cli-io.js";

/** Options every command takes: where to send, which credentials, how verbose. */
const COMMON = {
  "auth-url": { type: "string" },
  "base-url": { type: "string" },
  profile: { type: "string" },
  sandbox: { type: "string" },
  "client-id": { type: "string" },
  "org-id": { type: "string" },
  scopes: { type: "string" },
  "auth-method": { type: "string" },
  "technical-account-id": { type: "string" },
  "private-key-file": { type: "string" },
  metascopes: { type: "string" },
  "ca-file": { type: "string" },
  "no-cache": { type: "boolean" },
  verbose: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
} as const;

type OptionSpec = Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;
export type ParsedValues = Record<string, string | boolean | string[] | undefined>;

/** Parses the command's own options plus the common ones; unknown flags are usage errors. */
export function parseCommand(
  command: string,
  args: string[],
  own: OptionSpec,
): { values: ParsedValues; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { ...COMMON, ...own },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as ParsedValues, positionals };
  } catch (err) {
    throw new PlatformAuthError(
      "PA_USAGE",
      `${command}: ${(err as Error).message.split("\n")[0]}; see platform-auth --help`,
    );
  }
}

/** Settings given as flags (the highest layer). */
export function settingsFromFlags(v: ParsedValues): SettingsInput & { profile?: string } {
  const s = (k: string) => v[k] as string | undefined;
  return {
    authUrl: s("auth-url"),
    baseUrl: s("base-url"),
    profile: s("profile"),
    sandbox: s("sandbox"),
    clientId: s("client-id"),
    orgId: s("org-id"),
    scopes: s("scopes"),
    authMethod: s("auth-method"),
    technicalAccountId: s("technical-account-id"),
    privateKeyFile: s("private-key-file"),
    metascopes: s("metascopes"),
    caFile: s("ca-file"),
    tokenCache: v["no-cache"] ? "off" : undefined,
  };
}

/** The CLI's client: an on-disk token cache by default, and --verbose events on standard error. */
export function createCliClient(v: ParsedValues, io: CliIo): PlatformClient {
  return new PlatformClient({
    ...settingsFromFlags(v),
    env: io.env,
    cwd: io.cwd,
    defaultTokenCache: defaultTokenCachePath(io.env),
    onEvent: v.verbose ? (e) => io.stderr(`${describeEvent(e)}\n`) : undefined,
  });
}

function describeEvent(e: ClientEvent): string {
  if (e.type === "mint") return `minted a ${e.method} token, expires ${new Date(e.expiresAt).toISOString()}`;
  if (e.type === "remint")
    return `token refused (${e.reason}), minting a new one${e.requestId ? ` (request id ${e.requestId})` : ""}`;
  return `attempt ${e.attempt} failed (${e.reason}), retrying in ${e.delayMs} ms${e.requestId ? ` (request id ${e.requestId})` : ""}`;
}
