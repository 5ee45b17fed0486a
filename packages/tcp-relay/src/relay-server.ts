import { lookup } from "node:dns/promises";
import { mkdir, open } from "node:fs/promises";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { resolve } from "node:path";
import type { Writable } from "node:stream";
import { IndentSlots } from "./indent-slots.js";
import { FileDestination, type LogDestination, StreamDestination } from "./log-destinations.js";
import { LogWriter } from "./log-writer.js";
import { type MicroClock, microClock } from "./pcap-connection.js";
import { openPcapFile } from "./pcap-file.js";
import { RelayConnection, type RelayContext } from "./relay-connection.js";
import { RelayError } from "./relay-error.js";
import { RotatingFileDestination } from "./rotating-file-destination.js";
import { type Clock, IsoTimestamp, TimestampPrefix } from "./timestamp.js";

/** `-logcount` when `-logsize` is given without it. */
export const DEFAULT_LOG_COUNT = 5;

/** `-stall` when not given: the spec's default. */
export const DEFAULT_STALL_SECONDS = 10;

/** Everything a relay needs; the command line fills it from its arguments. */
export interface RelayOptions {
  /** The server's host: a name, an IPv4 or an IPv6 literal. */
  host: string;
  remotePort: number;
  /** 0 picks a free port (tests); `port` on the result says which. */
  localPort: number;
  /** Local address to listen on; default all interfaces. */
  bind?: string;
  quiet?: boolean;
  binary?: boolean;
  timestamps?: boolean;
  /** Timestamps with milliseconds (`-tms`); implies `timestamps`. */
  timestampMillis?: boolean;
  logFile?: string;
  /** Number of indentation slots; 0 or absent means none. */
  indent?: number;
  /** The log as JSON lines (`-json`), on the console and in the log file. */
  json?: boolean;
  /** Rotate the log file at this size in bytes (`-logsize`); needs `logFile`. */
  logSize?: number;
  /** With `logSize`: how many old files to keep, `name.1` … `name.<n>` (default 5). */
  logCount?: number;
  /** Also one log file per connection, `<connLogs>/<n>.log` (`-connlogs`); the folder is created. */
  connLogs?: string;
  /** Also write the conversation as a libpcap file (`-pcap`); truncated if it exists. */
  pcap?: string;
  /** Microsecond clock of the capture's packets; default the high-resolution timer. */
  pcapClock?: MicroClock;
  /** The HTTP view (`-http`): one line per request/response pair instead of byte entries. */
  http?: boolean;
  /** With `http`: seconds a request may wait for its response before a `stalled` line (default 10). */
  stallSeconds?: number;
  /** Where start-up lines and (unless quiet) entries go; default process.stdout. */
  console?: Writable;
  /** Where problems met while running go (a failing log file); default process.stderr. */
  errors?: Writable;
  /** Clock for `-t` and the Finished lines' rates; default Date.now. */
  now?: Clock;
  /** Log batch size and congestion threshold, for tests of backpressure. */
  logBatchBytes?: number;
  logHighWaterMark?: number;
}

/** A running relay. */
export interface Relay {
  /** The local port it listens on. */
  readonly port: number;
  /** Connections accepted so far (the next connection number). */
  readonly accepted: number;
  /** Stops listening, closes open connections (writing their Finished lines), flushes the log. */
  close(): Promise<void>;
}

// The host is looked up once at start-up so that a typo fails at once (exit 2); connections then
// use the host as given, so that a name with IPv4 and IPv6 addresses gets Node's "happy eyeballs".
async function checkHost(host: string): Promise<void> {
  try {
    await lookup(host, { all: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "lookup failed";
    throw new RelayError("TCP_RELAY_UNKNOWN_HOST", `cannot resolve host "${host}" (${code})`, {
      cause: error,
    });
  }
}

async function openLogFile(
  file: string,
  rotation: { maxBytes: number; count: number } | undefined,
): Promise<{ path: string; destination: LogDestination }> {
  const path = resolve(file);
  try {
    const destination =
      rotation === undefined
        ? new FileDestination(`log file ${path}`, await open(path, "a"))
        : await RotatingFileDestination.open(path, rotation.maxBytes, rotation.count);
    return { path, destination };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "open failed";
    throw new RelayError("TCP_RELAY_LOG_FILE", `cannot open log file ${path} for appending (${code})`, {
      cause: error,
    });
  }
}

async function makeConnLogDir(dir: string): Promise<string> {
  const path = resolve(dir);
  try {
    await mkdir(path, { recursive: true });
    return path;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "mkdir failed";
    throw new RelayError("TCP_RELAY_LOG_FILE", `cannot create the connection log folder ${path} (${code})`, {
      cause: error,
    });
  }
}

function listen(server: Server, port: number, bind: string | undefined): Promise<void> {
  return new Promise((done, fail) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const where = bind === undefined ? `port ${port}` : `${bind} port ${port}`;
      fail(
        error.code === "EADDRINUSE"
          ? new RelayError("TCP_RELAY_PORT_IN_USE", `local ${where} is already in use`, { cause: error })
          : new RelayError(
              "TCP_RELAY_LISTEN_FAILED",
              `cannot listen on ${where} (${error.code ?? error.message})`,
              {
                cause: error,
              },
            ),
      );
    };
    server.once("error", onError);
    server.listen({ port, host: bind }, () => {
      server.off("error", onError);
      done();
    });
  });
}

/** The start-up lines, as text or (with `-json`) as `start` objects that carry their text. */
function startupLines(
  options: RelayOptions,
  port: number,
  logPath: string | undefined,
  json: IsoTimestamp | null,
): string {
  const starting = `starting proxy for ${options.host}:${options.remotePort} on port ${port}`;
  const using = logPath === undefined ? undefined : `using logfile: ${logPath}`;
  if (json === null) return using === undefined ? `${starting}\n` : `${starting}\n${using}\n`;
  const time = json.text();
  let lines = `{"time":"${time}","type":"start","text":${JSON.stringify(starting)},"host":${JSON.stringify(
    options.host,
  )},"remotePort":${options.remotePort},"localPort":${port}}\n`;
  if (using !== undefined) {
    lines += `{"time":"${time}","type":"start","text":${JSON.stringify(using)},"logFile":${JSON.stringify(logPath)}}\n`;
  }
  return lines;
}

/**
 * Resolves the host, opens the log file, listens, and writes the start-up lines: from then on
 * every accepted connection is relayed to `host:remotePort` and logged.
 *
 * @example
 * const relay = await startRelay({ host: "example.com", remotePort: 80, localPort: 8080, timestamps: true });
 * // curl -x "" http://127.0.0.1:8080/ -H "Host: example.com"  ... then:
 * await relay.close();
 */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  const consoleOut = options.console ?? process.stdout;
  const errorsOut = options.errors ?? process.stderr;
  const clock = options.now ?? Date.now;
  const reportLogError = (d: LogDestination, error: Error) => {
    const code = (error as NodeJS.ErrnoException).code ?? error.message;
    errorsOut.write(`tcp-relay: cannot write to ${d.name} (${code}); it gets no more entries\n`);
  };
  await checkHost(options.host);
  if (options.logSize !== undefined && options.logFile === undefined) {
    throw new RelayError("TCP_RELAY_BAD_ARGUMENT", "logSize (-logsize) needs a log file (-logfile)");
  }
  const rotation =
    options.logSize === undefined
      ? undefined
      : { maxBytes: options.logSize, count: options.logCount ?? DEFAULT_LOG_COUNT };
  const file = options.logFile === undefined ? undefined : await openLogFile(options.logFile, rotation);
  const connLogDir = options.connLogs === undefined ? undefined : await makeConnLogDir(options.connLogs);
  const pcap = options.pcap === undefined ? undefined : await openPcapFile(options.pcap, reportLogError);

  const server = createServer({ allowHalfOpen: true, pauseOnConnect: true, noDelay: true });
  try {
    await listen(server, options.localPort, options.bind);
  } catch (error) {
    await file?.destination.close();
    await pcap?.writer.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;

  const json = options.json ? new IsoTimestamp(clock) : null;
  const startup = startupLines(options, port, file?.path, json);
  consoleOut.write(startup);
  file?.destination.write(Buffer.from(startup));

  const destinations: LogDestination[] = [];
  if (!options.quiet) destinations.push(new StreamDestination("the console", consoleOut, false));
  if (file !== undefined) destinations.push(file.destination);
  const log =
    destinations.length === 0
      ? null
      : new LogWriter(destinations, {
          batchBytes: options.logBatchBytes,
          highWaterMark: options.logHighWaterMark,
          onError: reportLogError,
        });

  const connections = new Set<RelayConnection>();
  const connectionLogsClosing = new Set<Promise<void>>();
  let accepted = 0;
  let closing: (() => void) | undefined;
  const context: RelayContext = {
    host: options.host,
    port: options.remotePort,
    log,
    json,
    pcap: pcap === undefined ? null : { writer: pcap.writer, clock: options.pcapClock ?? microClock },
    connLogs: connLogDir === undefined ? null : { dir: connLogDir, onError: reportLogError },
    http: options.http
      ? { stallMs: Math.round((options.stallSeconds ?? DEFAULT_STALL_SECONDS) * 1000) }
      : null,
    stamp:
      options.timestamps || options.timestampMillis
        ? new TimestampPrefix(clock, options.timestampMillis ?? false)
        : null,
    binary: options.binary ?? false,
    slots: new IndentSlots(options.indent ?? 0),
    clock,
    onClosed(connection, logsClosed) {
      connections.delete(connection);
      if (options.connLogs !== undefined) {
        connectionLogsClosing.add(logsClosed);
        void logsClosed.finally(() => connectionLogsClosing.delete(logsClosed));
      }
      if (connections.size === 0) closing?.();
    },
  };
  server.on("connection", (client: Socket) => {
    connections.add(new RelayConnection(accepted++, client, context));
  });
  // Accept failures (too many open files, ...) must not stop the relay; they are reported.
  server.on("error", (error: NodeJS.ErrnoException) => {
    errorsOut.write(`tcp-relay: accepting a connection failed (${error.code ?? error.message})\n`);
  });

  let closed: Promise<void> | undefined;
  return {
    port,
    get accepted() {
      return accepted;
    },
    close() {
      closed ??= (async () => {
        server.close();
        if (connections.size > 0) {
          const allClosed = new Promise<void>((done) => {
            closing = done;
          });
          for (const c of connections) c.destroy();
          await allClosed;
        }
        await log?.close();
        await pcap?.writer.close();
        await Promise.all(connectionLogsClosing);
      })();
      return closed;
    },
  };
}
