import { readFileSync, statSync } from "node:fs";
import { PlatformAuthError } from "./errors.js";
import { writePrivateFile } from "./private-file.js";
import { readConfigFile } from "./profile-file.js";
import type { SettingsInput } from "./settings.js";

/**
 * Adds a profile to the config file, which then holds a client secret: it is written owner-only
 * (0600 in a 0700 folder, like the token cache), under a temporary name and renamed, so that the
 * secret never sits in a file that others can read. Other profiles and keys are kept as they are.
 * The first profile written becomes the default one, so that commands find it without --profile.
 *
 * @example
 * saveProfile(configFilePath(process.env), "prod", { clientId, clientSecret, orgId });
 */
export function saveProfile(
  path: string,
  name: string,
  profile: SettingsInput,
  opts: { force?: boolean } = {},
): { replaced: boolean; madeDefault: boolean; tightened: boolean } {
  // Parsed and checked first: a damaged file is reported, not overwritten.
  const checked = readConfigFile(path);
  const raw = checked ? (JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>) : {};
  const profiles = { ...((raw.profiles as Record<string, unknown> | undefined) ?? {}) };
  const replaced = name in profiles;
  if (replaced && !opts.force) {
    throw new PlatformAuthError(
      "PA_USAGE",
      `import: profile "${name}" already exists in ${path}; choose another with --profile NAME, or replace it with --force`,
    );
  }
  profiles[name] = profile;
  const madeDefault =
    raw.defaultProfile === undefined && (Object.keys(profiles).length === 1 || !("default" in profiles));
  const out = { ...raw, ...(madeDefault ? { defaultProfile: name } : {}), profiles };
  let tightened = false;
  try {
    tightened = checked !== undefined && (statSync(path).mode & 0o077) !== 0;
  } catch {}
  try {
    writePrivateFile(path, `${JSON.stringify(out, null, 2)}\n`);
  } catch (err) {
    throw new PlatformAuthError("PA_CONFIG_INVALID", `config file ${path} could not be written`, {
      cause: err,
    });
  }
  return { replaced, madeDefault, tightened };
}
