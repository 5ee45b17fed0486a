import { homedir } from "node:os";
import { dirname, join } from "node:path";

type Env = Readonly<Record<string, string | undefined>>;

function home(env: Env): string {
  // HOME from the given environment first, so that tests and callers can point it elsewhere.
  return env.HOME && env.HOME !== "" ? env.HOME : homedir();
}

/** `$XDG_CONFIG_HOME/platform-auth/config.json`, else `~/.config/platform-auth/config.json`. */
export function configFilePath(env: Env): string {
  const base =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== "" ? env.XDG_CONFIG_HOME : join(home(env), ".config");
  return join(base, "platform-auth", "config.json");
}

/** `$XDG_CACHE_HOME/platform-auth/tokens.json`, else `~/.cache/platform-auth/tokens.json`. */
export function defaultTokenCachePath(env: Env): string {
  const base =
    env.XDG_CACHE_HOME && env.XDG_CACHE_HOME !== "" ? env.XDG_CACHE_HOME : join(home(env), ".cache");
  return join(base, "platform-auth", "tokens.json");
}

/** `usage.json` beside the token cache: the usage meter's counts of every process. */
export function defaultUsagePath(env: Env): string {
  return join(dirname(defaultTokenCachePath(env)), "usage.json");
}

/** `secrets.json` beside the token cache: which client secret worked last (fingerprints only). */
export function defaultSecretMemoryPath(env: Env): string {
  return join(dirname(defaultTokenCachePath(env)), "secrets.json");
}
