/**
 * Option parsing shared by every command: node's `util.parseArgs` (strict), each option also read
 * from `FEED_SERVICE_<OPTION>` (spec §6), booleans as 1|true|0|false. Usage mistakes become
 * FeedServiceError FEED_BAD_ARGUMENT, which the CLI turns into exit code 2.
 */
import { parseArgs } from "node:util";
import { badArgument } from "../errors.js";

export interface OptionSpec {
  readonly type: "string" | "boolean";
  readonly short?: string;
  /** Also read from FEED_SERVICE_<NAME> when not given on the command line. */
  readonly env?: boolean;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

export interface ParsedCommandLine {
  readonly values: Record<string, string | boolean | undefined>;
  readonly positionals: string[];
}

export type Env = Readonly<Record<string, string | undefined>>;

/** `public-url` -> `FEED_SERVICE_PUBLIC_URL`. */
export function envName(option: string): string {
  return `FEED_SERVICE_${option.toUpperCase().replaceAll("-", "_")}`;
}

export function parseCommandLine(argv: string[], specs: OptionSpecs, env: Env): ParsedCommandLine {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    help: { type: "boolean", short: "h" },
  };
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = spec.short ? { type: spec.type, short: spec.short } : { type: spec.type };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (error) {
    // parseArgs' messages name the option ("Unknown option '--x'"); keep their first line only.
    throw badArgument(String(error instanceof Error ? error.message : error).split("\n")[0]);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  for (const [name, spec] of Object.entries(specs)) {
    if (!spec.env || values[name] !== undefined) continue;
    const raw = env[envName(name)];
    if (raw === undefined || raw === "") continue;
    values[name] = spec.type === "boolean" ? readBoolean(envName(name), raw) : raw;
  }
  return { values, positionals: parsed.positionals };
}

function readBoolean(name: string, raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (v === "1" || v === "true") return true;
  if (v === "0" || v === "false") return false;
  throw badArgument(`${name} must be 1, true, 0 or false; got ${JSON.stringify(raw)}.`);
}

/** A whole number option within a range, e.g. `--port`. */
export function readIntegerOption(
  values: ParsedCommandLine["values"],
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const text = String(raw).trim();
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw badArgument(`--${name} must be a whole number from ${min} to ${max}; got ${JSON.stringify(raw)}.`);
  }
  return n;
}

/**
 * A duration in seconds, fractions allowed (`--query-timeout 2.5`), within (0, max]; returned in
 * milliseconds.
 */
export function readSecondsOption(
  values: ParsedCommandLine["values"],
  name: string,
  fallbackMs: number,
  maxSeconds: number,
): number {
  const raw = values[name];
  if (raw === undefined) return fallbackMs;
  const text = String(raw).trim();
  const seconds = /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
  const ms = Math.round(seconds * 1000);
  if (!Number.isFinite(seconds) || ms < 1 || seconds > maxSeconds) {
    throw badArgument(
      `--${name} must be a number of seconds above 0 and at most ${maxSeconds} (fractions allowed, e.g. 2.5); got ${JSON.stringify(raw)}.`,
    );
  }
  return ms;
}

export function readStringOption(values: ParsedCommandLine["values"], name: string): string | undefined {
  const raw = values[name];
  return typeof raw === "string" ? raw : undefined;
}
