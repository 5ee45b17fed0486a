import { readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { parse as parseDotenv } from "dotenv";
import { PlatformAuthError } from "./errors.js";
import { readConfigFile } from "./profile-file.js";
import {
  type AuthMethod,
  DEFAULT_AUTH_URL,
  DEFAULT_BASE_URL,
  DEFAULT_METASCOPES,
  DEFAULT_SCOPES,
  type ResolvedSettings,
  SETTING_FIELDS,
  type SettingField,
  type SettingsInput,
  toList,
} from "./settings.js";
import { checkServiceUrl } from "./url-policy.js";
import { configFilePath } from "./xdg-paths.js";

type Env = Readonly<Record<string, string | undefined>>;

export interface ResolveSettingsOptions {
  /** Call options or command-line flags: the highest layer. */
  options?: SettingsInput & { profile?: string };
  /** Environment variables; default `process.env`. */
  env?: Env;
  /** Folder whose `.env` file is the lowest layer; default `process.cwd()`. */
  cwd?: string;
  /** Config file path; default `$XDG_CONFIG_HOME/platform-auth/config.json`. */
  configFile?: string;
  /** For work that never sends the secret (building a JWT, reading the cache): do not require it. */
  secretOptional?: boolean;
}

/**
 * Resolves one credential set from, highest first: call options / flags, environment variables,
 * a named profile of the config file, and `.env` in the current folder. Every missing required
 * setting is reported in one error.
 *
 * @example
 * const settings = resolveSettings({ options: { sandbox: "dev" } });
 * console.log(settings.orgId, settings.scopes.join(","));
 */
export function resolveSettings(opts: ResolveSettingsOptions = {}): ResolvedSettings {
  const cwd = opts.cwd ?? process.cwd();
  const { layers, configPath, profileName, fromProfile } = readLayers(opts);
  // File settings are relative to the given folder, not to wherever the process happens to run.
  const fromCwd = (p: string | undefined) => (p === undefined || isAbsolute(p) ? p : resolve(cwd, p));
  const pick = <K extends keyof SettingsInput>(key: K): SettingsInput[K] =>
    layers.find((l) => l.values[key] !== undefined)?.values[key];

  const authMethod = checkAuthMethod(pick("authMethod") ?? "oauth");
  const secrets = secretsOf(layers.map((l) => l.values));
  const required: SettingField["key"][] = opts.secretOptional
    ? ["clientId", "orgId"]
    : ["clientId", "clientSecret", "orgId"];
  if (authMethod === "jwt") required.push("technicalAccountId");
  const present = (key: SettingField["key"]) =>
    key === "clientSecret" ? secrets.length > 0 : pick(key) !== undefined;
  const missing = SETTING_FIELDS.filter((f) => required.includes(f.key) && !present(f.key));
  if (authMethod === "jwt" && pick("privateKeyFile") === undefined && pick("privateKey") === undefined) {
    missing.push(SETTING_FIELDS.find((f) => f.key === "privateKeyFile")!);
  }
  if (missing.length > 0) throw missingSettingsError(missing, configPath, authMethod);

  return {
    clientId: pick("clientId") as string,
    clientSecret: secrets[0] ?? "",
    clientSecrets: secrets,
    orgId: pick("orgId") as string,
    sandbox: checkSandbox(pick("sandbox") as string | undefined),
    scopes: toList(pick("scopes")) ?? [...DEFAULT_SCOPES],
    authMethod,
    technicalAccountId: pick("technicalAccountId") as string | undefined,
    privateKeyFile: fromCwd(pick("privateKeyFile") as string | undefined),
    privateKey: pick("privateKey") as string | undefined,
    metascopes: toList(pick("metascopes")) ?? [...DEFAULT_METASCOPES],
    authUrl: checkServiceUrl("auth URL", (pick("authUrl") as string | undefined) ?? DEFAULT_AUTH_URL),
    baseUrl: checkServiceUrl("base URL", (pick("baseUrl") as string | undefined) ?? DEFAULT_BASE_URL),
    tokenCache: pick("tokenCache") === "off" ? "off" : fromCwd(pick("tokenCache") as string | undefined),
    caFile: fromCwd(pick("caFile") as string | undefined),
    budget: {
      callsPerHour: checkBudget("calls-per-hour budget", pick("callsPerHour")),
      mintsPerHour: checkBudget("mints-per-hour budget", pick("mintsPerHour")),
    },
    profile: fromProfile ? profileName : undefined,
  };
}

/** One source of settings, highest first, with a name a person can find it by. */
export interface SettingsLayer {
  /** "flag", "environment", `profile "dev" in /home/me/.config/platform-auth/config.json`, or the .env file's path. */
  source: string;
  values: SettingsInput;
  /** For the environment and .env: which variable each setting was read from. */
  variables?: Partial<Record<keyof SettingsInput, string>>;
}

/**
 * Reads every layer without validating values (the doctor checks them one by one and says where
 * each came from). Throws only when a named profile does not exist or a file cannot be parsed.
 */
export function readLayers(opts: ResolveSettingsOptions = {}): {
  layers: SettingsLayer[];
  configPath: string;
  profileName: string;
  fromProfile: SettingsInput | undefined;
} {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const dotenv = readDotenv(cwd);
  const configPath = opts.configFile ?? configFilePath(env);
  const config = readConfigFile(configPath);
  const named = opts.options?.profile ?? nonEmpty(env.AEP_PROFILE) ?? nonEmpty(dotenv.AEP_PROFILE);
  const profileName = named ?? config?.defaultProfile ?? "default";
  const fromProfile = config?.profiles[profileName];
  if (named !== undefined && fromProfile === undefined) {
    const known = config ? Object.keys(config.profiles).join(", ") || "none" : "none (no config file)";
    throw new PlatformAuthError(
      "PA_CONFIG_INVALID",
      `profile "${named}" not found in ${configPath}; profiles there: ${known}`,
    );
  }
  const layers: SettingsLayer[] = [
    { source: "flag", values: clean(opts.options ?? {}) },
    { source: "environment", ...envLayer(env) },
    { source: `profile "${profileName}" in ${configPath}`, values: fromProfile ?? {} },
    { source: join(cwd, ".env"), ...envLayer(dotenv) },
  ];
  return { layers, configPath, profileName, fromProfile };
}

/**
 * The client secrets of the highest layer that names any: its `clientSecret` first, then its
 * `clientSecrets`, without repeats. Layers are not merged, so that a secret set in the environment
 * replaces, not extends, the ones of a profile.
 */
function secretsOf(layers: SettingsInput[]): string[] {
  const layer = layers.find((l) => l.clientSecret !== undefined || l.clientSecrets !== undefined);
  if (!layer) return [];
  const all = [
    ...(layer.clientSecret !== undefined ? [layer.clientSecret] : []),
    ...(toList(layer.clientSecrets) ?? []),
  ];
  return [...new Set(all)];
}

function envLayer(env: Env): Pick<SettingsLayer, "values" | "variables"> {
  const values: Record<string, string> = {};
  const variables: Record<string, string> = {};
  for (const field of SETTING_FIELDS) {
    const name = field.env.find((n) => nonEmpty(env[n]) !== undefined);
    if (name !== undefined) {
      values[field.key] = env[name] as string;
      variables[field.key] = name;
    }
  }
  return { values: values as SettingsInput, variables };
}

function readDotenv(cwd: string): Record<string, string> {
  try {
    return parseDotenv(readFileSync(join(cwd, ".env")));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new PlatformAuthError("PA_CONFIG_INVALID", `.env in ${cwd} could not be read`, { cause: err });
  }
}

function missingSettingsError(
  missing: SettingField[],
  configPath: string,
  method: AuthMethod,
): PlatformAuthError {
  const names = missing.map((f) => f.label).join(", ");
  const how = missing.map((f) => {
    const ways = [f.flag, f.env.join(" or "), `"${f.key}" in a profile`].filter((w) => w !== undefined);
    return `  ${f.label}: ${ways.join(", ")}`;
  });
  return new PlatformAuthError(
    "PA_CONFIG_MISSING",
    `missing ${missing.length === 1 ? "setting" : `${missing.length} settings`} for the ${method} method: ${names}\n` +
      `set each as a flag or call option, an environment variable, a profile in ${configPath}, or in .env:\n` +
      how.join("\n"),
  );
}

function checkAuthMethod(value: string): AuthMethod {
  const v = value.toLowerCase();
  if (v === "oauth" || v === "jwt") return v;
  throw new PlatformAuthError(
    "PA_CONFIG_INVALID",
    `auth method ${JSON.stringify(value)} is not allowed; use "oauth" (server-to-server) or "jwt" (deprecated)`,
  );
}

/** A budget: a whole number ≥ 1, or unset. */
export function checkBudget(label: string, value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new PlatformAuthError(
      "PA_CONFIG_INVALID",
      `${label} ${JSON.stringify(value)} is not allowed; use a whole number ≥ 1 (requests per hour)`,
    );
  }
  return n;
}

function checkSandbox(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  // Platform sandbox names are lowercase letters, digits and hyphens; a mistyped case would
  // silently hit a different (or no) sandbox, so it is an error rather than a silent fix.
  if (!/^[a-z0-9][a-z0-9-]{0,255}$/.test(value)) {
    throw new PlatformAuthError(
      "PA_CONFIG_INVALID",
      `sandbox ${JSON.stringify(value)} is not allowed; sandbox names are lowercase letters, digits and hyphens (e.g. "prod", "dev-2")`,
    );
  }
  return value;
}

function clean(input: SettingsInput & { profile?: string }): SettingsInput {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (k !== "profile" && v !== undefined && v !== "") out[k] = v;
  }
  return out as SettingsInput;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === "" ? undefined : v;
}
