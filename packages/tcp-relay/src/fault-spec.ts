import { RelayError } from "./relay-error.js";

/** Which bytes a fault acts on: client to server, server to client, or both. */
export type FaultDirection = "c2s" | "s2c" | "both";

/** What each fault does, with its parameters (the spec's "Faults on purpose"). */
export type FaultAction =
  /** Hold each chunk `ms` (± up to `jitterMs`) before forwarding it, order kept. */
  | { kind: "delay"; ms: number; jitterMs: number }
  /** Forward at most `kibPerSecond` KiB per second. */
  | { kind: "rate"; kibPerSecond: number }
  /** Forward in pieces of `bytes` (± up to `variation`), `ms` apart. */
  | { kind: "slice"; bytes: number; variation: number; ms: number }
  /** Forward `bytes` bytes, then close the connection. */
  | { kind: "limit"; bytes: number }
  /** Reset both sides `ms` after the connection opens. */
  | { kind: "reset"; ms: number }
  /**
   * From `ms` after the connection opens, read and drop; nothing closes, unless `closeAfterMs`
   * (toxiproxy's timeout toxic, through the control API only) closes the connection that long
   * after the blackhole started.
   */
  | { kind: "blackhole"; ms: number; closeAfterMs?: number }
  /** Accept and at once close the connection, before connecting upstream. */
  | { kind: "refuse" };

export type FaultKind = FaultAction["kind"];

/** One configured fault: an action, its direction, and which connections it hits. */
export type Fault = FaultAction & {
  /** Unique within the relay: the toxic's name in the control API (`delay_c2s`, ...). */
  name: string;
  dir: FaultDirection;
  /** Acts on every `every`th connection: connection n when (n + 1) % every === 0 (1 = all). */
  every: number;
  /** Probability that it acts on a given connection (toxiproxy's toxicity); 1 from the command line. */
  toxicity: number;
};

export const FAULT_KINDS: readonly FaultKind[] = [
  "delay",
  "rate",
  "slice",
  "limit",
  "reset",
  "blackhole",
  "refuse",
];

/** What each option takes, for the error messages and `--help`. */
export const FAULT_SYNTAX: Record<FaultKind, string> = {
  delay: "<dir>:<ms>[±<jitter ms>][@N]",
  rate: "<dir>:<KiB/s>[@N]",
  slice: "<dir>:<bytes>[±<variation>][/<ms>][@N]",
  limit: "<dir>:<bytes>[@N]",
  reset: "<dir>:<ms>[@N]",
  blackhole: "<dir>[:<ms>][@N]",
  refuse: "@N",
};

/** A week: longer waits are a typo. */
const MAX_MS = 7 * 86_400_000;
/** 10 GiB/s: beyond any link the relay can drive. */
const MAX_KIB_PER_SECOND = 10 * 1024 * 1024;

function bad(option: string, text: string, why: string): RelayError {
  return new RelayError(
    "TCP_RELAY_BAD_ARGUMENT",
    `${option} takes ${FAULT_SYNTAX[option.replace(/^-+/, "") as FaultKind]} (<dir> is c2s, s2c or both)${why}; got "${text}"`,
  );
}

function whole(
  option: string,
  text: string,
  value: string | undefined,
  what: string,
  min: number,
  max: number,
) {
  const n = value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= min && n <= max))
    throw bad(option, text, `: ${what} must be a whole number from ${min} to ${max}`);
  return n;
}

/**
 * Parses one fault option's value, e.g. `-delay c2s:200±10`, `-limit s2c:10000@3`, `-refuse @5`.
 * `+-` may be written for `±`. The name is `<kind>_<dir>` (with `_<n>` when taken).
 *
 * @example
 * parseFault("-delay", "c2s:200±10");
 * // { kind: "delay", ms: 200, jitterMs: 10, dir: "c2s", every: 1, toxicity: 1, name: "delay_c2s" }
 */
export function parseFault(option: string, text: string | undefined): Fault {
  const kind = option.replace(/^-+/, "") as FaultKind;
  if (!FAULT_KINDS.includes(kind)) {
    throw new RelayError(
      "TCP_RELAY_BAD_ARGUMENT",
      `unknown fault "${option}" (allowed: ${FAULT_KINDS.join(", ")})`,
    );
  }
  if (text === undefined || text === "") {
    throw new RelayError("TCP_RELAY_BAD_ARGUMENT", `option ${option} needs ${FAULT_SYNTAX[kind]}`);
  }
  const at = /^(.*?)(?:@(\d+))?$/.exec(text)!;
  const every = at[2] === undefined ? 1 : whole(option, text, at[2], "N of @N", 1, 1_000_000);
  const body = at[1]!.replace("+-", "±");
  if (kind === "refuse") {
    if (body !== "" || at[2] === undefined) throw bad(option, text, "");
    return { kind, dir: "both", every, toxicity: 1, name: "refuse" };
  }
  const m = /^(c2s|s2c|both)(?::(.*))?$/.exec(body);
  if (m === null) throw bad(option, text, ": the direction comes first");
  const dir = m[1] as FaultDirection;
  const rest = m[2];
  const base = { dir, every, toxicity: 1, name: `${kind}_${dir}` };
  if (kind === "blackhole") {
    return { ...base, kind, ms: rest === undefined ? 0 : whole(option, text, rest, "<ms>", 0, MAX_MS) };
  }
  if (rest === undefined) throw bad(option, text, "");
  switch (kind) {
    case "delay": {
      const [ms, jitter] = rest.split("±");
      const delay = whole(option, text, ms, "<ms>", 0, MAX_MS);
      const jitterMs = jitter === undefined ? 0 : whole(option, text, jitter, "<jitter ms>", 0, delay);
      return { ...base, kind, ms: delay, jitterMs };
    }
    case "rate": {
      const kib = /^\d+(\.\d+)?$/.test(rest) ? Number(rest) : Number.NaN;
      if (!(kib > 0 && kib <= MAX_KIB_PER_SECOND)) {
        throw bad(
          option,
          text,
          `: <KiB/s> must be a number greater than 0 and at most ${MAX_KIB_PER_SECOND}`,
        );
      }
      return { ...base, kind, kibPerSecond: kib };
    }
    case "slice": {
      const s = /^([^±/]*)(?:±([^/]*))?(?:\/(.*))?$/.exec(rest)!;
      const bytes = whole(option, text, s[1], "<bytes>", 1, 1 << 30);
      const variation = s[2] === undefined ? 0 : whole(option, text, s[2], "<variation>", 0, bytes - 1);
      const ms = s[3] === undefined ? 0 : whole(option, text, s[3], "<ms>", 0, MAX_MS);
      return { ...base, kind, bytes, variation, ms };
    }
    case "limit":
      return { ...base, kind, bytes: whole(option, text, rest, "<bytes>", 0, Number.MAX_SAFE_INTEGER) };
    default:
      return { ...base, kind: "reset", ms: whole(option, text, rest, "<ms>", 0, MAX_MS) };
  }
}

/** The parameters as the text log's fault line shows them: `200±10 ms`, `100 KiB/s`, ... */
export function describeFault(f: Fault): string {
  const every = f.every > 1 ? ` @${f.every}` : "";
  switch (f.kind) {
    case "delay":
      return `${f.ms}${f.jitterMs > 0 ? `±${f.jitterMs}` : ""} ms${every}`;
    case "rate":
      return `${f.kibPerSecond} KiB/s${every}`;
    case "slice":
      return `${f.bytes}${f.variation > 0 ? `±${f.variation}` : ""} bytes/${f.ms} ms${every}`;
    case "limit":
      return `${f.bytes} bytes${every}`;
    case "reset":
      return `after ${f.ms} ms${every}`;
    case "blackhole":
      return `after ${f.ms} ms${f.closeAfterMs ? `, closing after ${f.closeAfterMs} ms` : ""}${every}`;
    case "refuse":
      return `@${f.every}`;
  }
}

/** The parameters as JSON fields (without braces), for the `fault` objects of `-json`. */
export function faultFields(f: Fault): string {
  const { kind: _k, name, dir: _d, ...params } = f;
  return `"name":${JSON.stringify(name)},${JSON.stringify(params).slice(1, -1)}`;
}

/** Gives each fault a name not yet taken (`delay_c2s`, `delay_c2s_2`, ...). */
export function uniqueName(wanted: string, taken: (name: string) => boolean): string {
  if (!taken(wanted)) return wanted;
  for (let k = 2; ; k++) if (!taken(`${wanted}_${k}`)) return `${wanted}_${k}`;
}
