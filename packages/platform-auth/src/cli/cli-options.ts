import { parseArgs } from "node:util";
import { PlatformAuthError } from "../errors.js";
import { type ClientEvent, PlatformClient } from "../platform-client.js";
import type { SettingsInput } from "../settings.js";
import { defaultSecretMemoryPath, defaultTokenCachePath, defaultUsagePath } from "../xdg-paths.js";
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

/**
 * Parses the command's own options plus the common ones. Unknown flags, missing values and values
 * given to switches are usage errors that name the flag and list the ones the command takes;
 * node:util's own messages are not passed on (they quote unevenly and name no alternative).
 */
export function parseCommand(
  command: string,
  args: string[],
  own: OptionSpec,
): { values: ParsedValues; positionals: string[] } {
  const options: OptionSpec = { ...COMMON, ...own };
  // Non-strict parsing yields every token, so that each problem is reported in our words.
  const { values, positionals, tokens } = parseArgs({
    args,
    options,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  for (const t of tokens) {
    if (t.kind !== "option") continue;
    const spec = options[t.name];
    if (!spec) throw unknownFlag(command, t.rawName, options);
    if (spec.type === "string") {
      // "--port --json" would take "--json" as the port: a value that looks like a flag is missing.
      // A negative number is a value ("--retry-after -1" is then refused by the command's own check).
      const looksLikeFlag = !t.inlineValue && /^-[^\d]/.test(t.value ?? "");
      if (t.value === undefined || looksLikeFlag) {
        throw new PlatformAuthError(
          "PA_USAGE",
          `${command}: ${t.rawName} needs a value (${t.rawName} VALUE or ${t.rawName}=VALUE); see platform-auth ${command} --help`,
        );
      }
    } else if (t.value !== undefined) {
      throw new PlatformAuthError(
        "PA_USAGE",
        `${command}: ${t.rawName} is a switch and takes no value (got ${JSON.stringify(t.value)}); see platform-auth ${command} --help`,
      );
    }
  }
  return { values: values as ParsedValues, positionals };
}

function unknownFlag(command: string, raw: string, options: OptionSpec): PlatformAuthError {
  const names = Object.keys(options);
  // The command's own options first: they are the ones a typo most likely meant.
  const ordered = [...names.filter((n) => !(n in COMMON)), ...names.filter((n) => n in COMMON)];
  const shown = ordered.map((n) => `--${n}${options[n].short ? ` (-${options[n].short})` : ""}`);
  const typed = raw.replace(/^-+/, "");
  const near = raw.startsWith("--") ? names.find((n) => editDistance(n, typed) <= 2) : undefined;
  const hint = near !== undefined ? ` (did you mean --${near}?)` : "";
  return new PlatformAuthError(
    "PA_USAGE",
    `${command}: unknown option ${raw}${hint}; ${command} takes ${shown.join(", ")}; see platform-auth --help`,
  );
}

/** Levenshtein distance, for "did you mean" on mistyped flags (names are short). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
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
    usageFile: defaultUsagePath(io.env),
    secretMemoryFile: defaultSecretMemoryPath(io.env),
    // A refused secret during a rotation, or a budget nearly spent, is worth saying even without --verbose.
    onEvent: (e) => {
      if (v.verbose || e.type === "secret-rejected" || e.type === "budget")
        io.stderr(`${describeEvent(e)}\n`);
    },
  });
}

function describeEvent(e: ClientEvent): string {
  if (e.type === "budget") {
    const share = Math.round((e.used / e.budget) * 100);
    return e.reached
      ? `platform-auth: warning: ${e.used} ${e.what} this hour reached the budget of ${e.budget} (${share}%) set for this credential; stop or spread the work of every app that uses it`
      : `platform-auth: warning: ${e.used} of ${e.budget} ${e.what} this hour (${share}%) for this credential, across every process; slow down before the budget is reached`;
  }
  if (e.type === "secret-rejected") {
    return `platform-auth: warning: client secret #${e.rejected} of ${e.of} is no longer accepted (invalid_client); #${e.accepted} worked and is used from now on; remove #${e.rejected} from your settings once the rotation is done`;
  }
  if (e.type === "mint") return `minted a ${e.method} token, expires ${new Date(e.expiresAt).toISOString()}`;
  if (e.type === "remint")
    return `token refused (${e.reason}), minting a new one${e.requestId ? ` (request id ${e.requestId})` : ""}`;
  return `attempt ${e.attempt} failed (${e.reason}), retrying in ${e.delayMs} ms${e.requestId ? ` (request id ${e.requestId})` : ""}`;
}
