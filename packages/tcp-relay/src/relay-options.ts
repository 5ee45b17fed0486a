import { type Fault, parseFault } from "./fault-spec.js";
import { RelayError } from "./relay-error.js";

/** What the command line asks for, before the host is resolved or anything listens. */
export interface RelayArguments {
  host: string;
  remotePort: number;
  localPort: number;
  /** Entries are kept off the console (start-up lines and errors still go there). */
  quiet: boolean;
  /** Entries show 16 bytes each as hex and characters. */
  binary: boolean;
  /** Entries and Finished lines start with `[YYYY-MM-DD HH:MM:SS] `. */
  timestamps: boolean;
  /** Timestamps with milliseconds, `[YYYY-MM-DD HH:MM:SS.mmm] ` (implies `timestamps`). */
  timestampMillis: boolean;
  /** Also append the log to this file (as given; resolved to an absolute path when opened). */
  logFile: string | undefined;
  /** Number of indentation slots; 0 means no indentation. */
  indent: number;
  /** The log as JSON lines. */
  json: boolean;
  /** Rotate the log file at this many bytes. */
  logSize: number | undefined;
  /** With `logSize`: rotated files kept. */
  logCount: number | undefined;
  /** Folder for one log file per connection. */
  connLogs: string | undefined;
  /** Also write the conversation as a libpcap file. */
  pcap: string | undefined;
  /** The HTTP view: one line per request/response pair. */
  http: boolean;
  /** With `http`: seconds before a request without a response gets a `stalled` line. */
  stallSeconds: number | undefined;
  /** Local address to listen on; undefined means all interfaces. */
  bind: string | undefined;
  /** Faults on purpose from the command line (`-delay`, `-rate`, ...), in the order given. */
  faults: Fault[];
  /** `-faults <file>`: more faults from a JSON file. */
  faultsFile: string | undefined;
  /** `-control <port>`: toxiproxy's HTTP API on 127.0.0.1 at that port. */
  control: number | undefined;
  /** `-har <file>` (with `-http`): the exchanges as HAR 1.2. */
  har: string | undefined;
  /** `-harbody <bytes>`: bytes of each body kept in the HAR. */
  harBody: number | undefined;
  help: boolean;
  version: boolean;
}

/** A bare `-i` means this many slots, as in the classic tool. */
export const DEFAULT_INDENT_SLOTS = 16;
/** More slots than this would only push entries off any screen; it also bounds the prefix size. */
export const MAX_INDENT_SLOTS = 256;

const ALLOWED =
  "-q, -b, -t, -tms, -logfile <file>, -i [n], -json, -http, -stall <seconds>, -logsize <bytes>, -logcount <n>, -connlogs <dir>, -pcap <file>, -bind <address>, -delay <dir>:<ms>[±<jitter>], -rate <dir>:<KiB/s>, -slice <dir>:<bytes>[±<var>][/<ms>], -limit <dir>:<bytes>, -reset <dir>:<ms>, -blackhole <dir>[:<ms>], -refuse @N, -faults <file>, -control <port>, -har <file>, -harbody <bytes>, --help, --version";

function parsePort(name: string, value: string | undefined): number {
  if (value === undefined) {
    throw new RelayError("TCP_RELAY_BAD_ARGUMENT", `missing <${name}>: a port number from 1 to 65535`);
  }
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) {
    throw new RelayError(
      "TCP_RELAY_BAD_ARGUMENT",
      `${name} must be a port number from 1 to 65535; got "${value}"`,
    );
  }
  return port;
}

const SIZE_UNITS: Record<string, number> = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

function parseSize(option: string, value: string | undefined): number {
  const text = requireValue(option, value, "a size in bytes");
  const m = /^(\d{1,15})([kKmMgG]?)$/.exec(text);
  const bytes = m === null ? Number.NaN : Number(m[1]) * SIZE_UNITS[m[2]!.toLowerCase()]!;
  if (!(bytes >= 1 && bytes <= Number.MAX_SAFE_INTEGER)) {
    throw new RelayError(
      "TCP_RELAY_BAD_ARGUMENT",
      `${option} takes a size in bytes (at least 1; suffix k, m or g for KiB, MiB, GiB); got "${text}"`,
    );
  }
  return bytes;
}

/** More rotated files than this is a mistake rather than a plan. */
export const MAX_LOG_COUNT = 1000;

function parseCount(option: string, value: string | undefined): number {
  const text = requireValue(option, value, "a number of files");
  const count = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(count >= 1 && count <= MAX_LOG_COUNT)) {
    throw new RelayError(
      "TCP_RELAY_BAD_ARGUMENT",
      `${option} takes a number of files from 1 to ${MAX_LOG_COUNT}; got "${text}"`,
    );
  }
  return count;
}

function parseSeconds(option: string, value: string | undefined): number {
  const text = requireValue(option, value, "a number of seconds");
  const seconds = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds > 0 && seconds <= 86_400)) {
    throw new RelayError(
      "TCP_RELAY_BAD_ARGUMENT",
      `${option} takes a number of seconds greater than 0 and at most 86400; got "${text}"`,
    );
  }
  return seconds;
}

function requireValue(option: string, value: string | undefined, what: string): string {
  if (value === undefined || value === "") {
    throw new RelayError("TCP_RELAY_BAD_ARGUMENT", `option ${option} needs ${what}`);
  }
  return value;
}

/**
 * Parses the classic command line `<host> <remoteport> <localport> [options]`. Options may also
 * come before or between the three positional arguments; GNU-style aliases are accepted.
 *
 * @example
 * parseRelayArguments(["example.com", "80", "8080", "-t", "-i"]);
 * // { host: "example.com", remotePort: 80, localPort: 8080, timestamps: true, indent: 16, ... }
 */
export function parseRelayArguments(argv: readonly string[]): RelayArguments {
  const parsed: RelayArguments = {
    host: "",
    remotePort: 0,
    localPort: 0,
    quiet: false,
    binary: false,
    timestamps: false,
    timestampMillis: false,
    logFile: undefined,
    indent: 0,
    json: false,
    http: false,
    stallSeconds: undefined,
    logSize: undefined,
    logCount: undefined,
    connLogs: undefined,
    pcap: undefined,
    bind: undefined,
    faults: [],
    faultsFile: undefined,
    control: undefined,
    har: undefined,
    harBody: undefined,
    help: false,
    version: false,
  };
  const positional: string[] = [];
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k]!;
    switch (arg) {
      case "-q":
      case "--quiet":
        parsed.quiet = true;
        break;
      case "-b":
      case "--binary":
        parsed.binary = true;
        break;
      case "-t":
      case "--timestamps":
        parsed.timestamps = true;
        break;
      case "-tms":
      case "--timestamps-ms":
        parsed.timestamps = true;
        parsed.timestampMillis = true;
        break;
      case "-logfile":
      case "--logfile":
      case "--log-file":
        parsed.logFile = requireValue(arg, argv[++k], "a file name");
        break;
      case "-json":
      case "--json":
        parsed.json = true;
        break;
      case "-logsize":
      case "--log-size":
        parsed.logSize = parseSize(arg, argv[++k]);
        break;
      case "-logcount":
      case "--log-count":
        parsed.logCount = parseCount(arg, argv[++k]);
        break;
      case "-connlogs":
      case "--conn-logs":
        parsed.connLogs = requireValue(arg, argv[++k], "a folder");
        break;
      case "-pcap":
      case "--pcap":
        parsed.pcap = requireValue(arg, argv[++k], "a file name");
        break;
      case "-http":
      case "--http":
        parsed.http = true;
        break;
      case "-stall":
      case "--stall":
        parsed.stallSeconds = parseSeconds(arg, argv[++k]);
        break;
      case "-bind":
      case "--bind":
        parsed.bind = requireValue(arg, argv[++k], "a local address");
        break;
      case "-delay":
      case "-rate":
      case "-slice":
      case "-limit":
      case "-reset":
      case "-blackhole":
      case "-refuse":
      case "--delay":
      case "--rate":
      case "--slice":
      case "--limit":
      case "--reset":
      case "--blackhole":
      case "--refuse":
        parsed.faults.push(parseFault(arg, argv[++k]));
        break;
      case "-faults":
      case "--faults":
        parsed.faultsFile = requireValue(arg, argv[++k], "a JSON file of faults");
        break;
      case "-har":
      case "--har":
        parsed.har = requireValue(arg, argv[++k], "a file name");
        break;
      case "-harbody":
      case "--har-body":
        parsed.harBody = parseSize(arg, argv[++k]);
        break;
      case "-control":
      case "--control":
        parsed.control = parsePort("control port", argv[++k]);
        break;
      case "-i":
      case "--indent": {
        // The number is optional: only a following all-digit word is taken as the slot count.
        const next = argv[k + 1];
        if (next !== undefined && /^\d+$/.test(next)) {
          const slots = Number(next);
          if (slots > MAX_INDENT_SLOTS) {
            throw new RelayError(
              "TCP_RELAY_BAD_ARGUMENT",
              `${arg} takes a number of slots from 0 to ${MAX_INDENT_SLOTS}; got "${next}"`,
            );
          }
          parsed.indent = slots;
          k++;
        } else {
          parsed.indent = DEFAULT_INDENT_SLOTS;
        }
        break;
      }
      case "-h":
      case "-help":
      case "--help":
        parsed.help = true;
        break;
      case "-v":
      case "--version":
        parsed.version = true;
        break;
      default:
        if (arg.startsWith("-") && arg !== "-") {
          throw new RelayError("TCP_RELAY_BAD_ARGUMENT", `unknown option "${arg}" (allowed: ${ALLOWED})`);
        }
        positional.push(arg);
    }
  }
  if (parsed.help || parsed.version) return parsed;
  if (parsed.logSize !== undefined && parsed.logFile === undefined) {
    throw new RelayError("TCP_RELAY_BAD_ARGUMENT", "-logsize needs -logfile (it rotates the log file)");
  }
  if (parsed.logCount !== undefined && parsed.logSize === undefined) {
    throw new RelayError(
      "TCP_RELAY_BAD_ARGUMENT",
      "-logcount needs -logsize (files are kept only when rotated)",
    );
  }
  if (parsed.stallSeconds !== undefined && !parsed.http) {
    throw new RelayError("TCP_RELAY_BAD_ARGUMENT", "-stall needs -http (it times requests of the HTTP view)");
  }
  if (parsed.har !== undefined && !parsed.http) {
    throw new RelayError("TCP_RELAY_BAD_ARGUMENT", "-har needs -http (it records the HTTP view's exchanges)");
  }
  if (parsed.harBody !== undefined && parsed.har === undefined) {
    throw new RelayError(
      "TCP_RELAY_BAD_ARGUMENT",
      "-harbody needs -har (it bounds the bodies kept in the HAR file)",
    );
  }
  if (positional.length > 3) {
    throw new RelayError(
      "TCP_RELAY_BAD_ARGUMENT",
      `unexpected argument "${positional[3]}": expected <host> <remoteport> <localport> [options]`,
    );
  }
  if (positional[0] === undefined || positional[0] === "") {
    throw new RelayError("TCP_RELAY_BAD_ARGUMENT", "missing <host> <remoteport> <localport>");
  }
  parsed.host = positional[0];
  parsed.remotePort = parsePort("remoteport", positional[1]);
  parsed.localPort = parsePort("localport", positional[2]);
  return parsed;
}
