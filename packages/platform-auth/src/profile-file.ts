import { readFileSync } from "node:fs";
import { PlatformAuthError } from "./errors.js";
import { PROFILE_KEYS, type SettingsInput } from "./settings.js";

// Settings that may be written as a JSON list as well as a comma-separated string.
const LIST_KEYS = ["scopes", "metascopes", "clientSecrets"];
// Budgets may be written as JSON numbers.
const NUMBER_KEYS = ["callsPerHour", "mintsPerHour"];

/** The parsed config file: `{ "profiles": { "<name>": { ... } }, "defaultProfile": "<name>" }`. */
export interface ConfigFile {
  profiles: Record<string, SettingsInput>;
  defaultProfile: string | undefined;
}

/** Reads the config file; `undefined` when it does not exist. Unknown keys are errors, not ignored. */
export function readConfigFile(path: string): ConfigFile | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new PlatformAuthError("PA_CONFIG_INVALID", `config file ${path} could not be read`, { cause: err });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new PlatformAuthError(
      "PA_CONFIG_INVALID",
      `config file ${path} is not valid JSON (${(err as Error).message})`,
    );
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new PlatformAuthError(
      "PA_CONFIG_INVALID",
      `config file ${path} must hold a JSON object with "profiles"`,
    );
  }
  const { profiles = {}, defaultProfile } = data as { profiles?: unknown; defaultProfile?: unknown };
  if (typeof profiles !== "object" || profiles === null || Array.isArray(profiles)) {
    throw new PlatformAuthError("PA_CONFIG_INVALID", `config file ${path}: "profiles" must be an object`);
  }
  if (defaultProfile !== undefined && typeof defaultProfile !== "string") {
    throw new PlatformAuthError(
      "PA_CONFIG_INVALID",
      `config file ${path}: "defaultProfile" must be a string`,
    );
  }
  const checked: Record<string, SettingsInput> = {};
  for (const [name, profile] of Object.entries(profiles as Record<string, unknown>)) {
    checked[name] = checkProfile(path, name, profile);
  }
  return { profiles: checked, defaultProfile };
}

function checkProfile(path: string, name: string, profile: unknown): SettingsInput {
  if (typeof profile !== "object" || profile === null || Array.isArray(profile)) {
    throw new PlatformAuthError(
      "PA_CONFIG_INVALID",
      `config file ${path}: profile "${name}" must be an object`,
    );
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(profile)) {
    if (!(PROFILE_KEYS as string[]).includes(key)) {
      throw new PlatformAuthError(
        "PA_CONFIG_INVALID",
        `config file ${path}: profile "${name}" has unknown key "${key}"; allowed: ${PROFILE_KEYS.join(", ")}`,
      );
    }
    const listOk =
      LIST_KEYS.includes(key) && Array.isArray(value) && value.every((v) => typeof v === "string");
    const numberOk = NUMBER_KEYS.includes(key) && typeof value === "number";
    if (typeof value !== "string" && !listOk && !numberOk) {
      throw new PlatformAuthError(
        "PA_CONFIG_INVALID",
        `config file ${path}: profile "${name}" key "${key}" must be a string${LIST_KEYS.includes(key) ? " or a list of strings" : ""}`,
      );
    }
    out[key] = value;
  }
  return out as SettingsInput;
}
