import { type AddressInfo, createServer, type Socket } from "node:net";
import type { Writable } from "node:stream";
import { ChunkLogQueue } from "./chunk-log-queue.js";
import { refuseIfAsked } from "./connection-refusal.js";
import { CONTROL_PROXY_NAME, startControlApi } from "./control-api.js";
import { readFaultFile } from "./fault-file.js";
import type { Fault } from "./fault-spec.js";
import { FaultTable } from "./fault-table.js";
import { HarRecorder } from "./har-recorder.js";
import { IndentSlots } from "./indent-slots.js";
import { type LogDestination, StreamDestination } from "./log-destinations.js";
import { LogWriter } from "./log-writer.js";
import { packageVersion } from "./package-version.js";
import { type MicroClock, microClock } from "./pcap-connection.js";
import { openPcapFile } from "./pcap-file.js";
import { RelayConnection, type RelayContext } from "./relay-connection.js";
import { RelayError } from "./relay-error.js";
import { checkHost, listen, makeConnLogDir, openLogFile, startupLines } from "./relay-startup.js";
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
  /**
   * Also write the conversation as a libpcap file (`-pcap`); truncated if it exists. `-` is
   * standard output (the console then goes to standard error); to it and to a FIFO every packet is
   * written at once, for a reader that follows live.
   */
  pcap?: string;
  /** Microsecond clock of the capture's packets; default the high-resolution timer. */
  pcapClock?: MicroClock;
  /** The HTTP view (`-http`): one line per request/response pair instead of byte entries. */
  http?: boolean;
  /** With `http`: seconds a request may wait for its response before a `stalled` line (default 10). */
  stallSeconds?: number;
  /** Faults on purpose (`-delay`, `-rate`, ...): every connection they hit goes through them. */
  faults?: readonly Fault[];
  /** `-faults <file>`: more faults from a JSON file, read at start-up. */
  faultsFile?: string;
  /** `-har <file>` (needs `http`): the exchanges as HAR 1.2, written on close and by `writeHar`. */
  har?: string;
  /** With `har`: bytes of each body kept (default 1 MiB). */
  harBody?: number;
  /** `-control <port>`: toxiproxy's HTTP API on 127.0.0.1 at that port (0 picks a free one). */
  control?: number;
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
  /** The faults on purpose, when any were configured (or `control` was given). */
  readonly faults: FaultTable | null;
  /** With `control`: the port of the control API. */
  readonly controlPort: number | null;
  /** With `har`: writes the HAR file of the exchanges so far (the relay goes on). */
  writeHar(): Promise<void>;
  /** Stops listening, closes open connections (writing their Finished lines), flushes the log. */
  close(): Promise<void>;
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
  // With the capture on standard output (`-pcap -`), what the console shows goes to standard error.
  const consoleOut = options.console ?? (options.pcap === "-" ? process.stderr : process.stdout);
  const errorsOut = options.errors ?? process.stderr;
  const clock = options.now ?? Date.now;
  const reportLogError = (d: LogDestination, error: Error) => {
    const code = (error as NodeJS.ErrnoException).code ?? error.message;
    errorsOut.write(`tcp-relay: cannot write to ${d.name} (${code}); it gets no more entries\n`);
  };
  await checkHost(options.host);
  if (options.har !== undefined && !options.http) {
    throw new RelayError("TCP_RELAY_BAD_ARGUMENT", "har (-har) needs the HTTP view (-http)");
  }
  const har =
    options.har === undefined
      ? null
      : new HarRecorder(
          options.har,
          `${options.host}:${options.remotePort}`,
          packageVersion(),
          options.harBody,
        );
  // Written once empty at start-up, so that a HAR file that cannot be written fails at once.
  await har?.write().catch((error: NodeJS.ErrnoException) => {
    throw new RelayError(
      "TCP_RELAY_LOG_FILE",
      `cannot write the HAR file ${har.path} (${error.code ?? error.message})`,
      {
        cause: error,
      },
    );
  });
  const faultList = [...(options.faults ?? [])];
  if (options.faultsFile !== undefined) faultList.push(...(await readFaultFile(options.faultsFile)));
  let faults: FaultTable | null = null;
  if (faultList.length > 0 || options.control !== undefined) {
    faults = new FaultTable(clock);
    for (const f of faultList) faults.add(f);
  }
  if (options.logSize !== undefined && options.logFile === undefined) {
    throw new RelayError("TCP_RELAY_BAD_ARGUMENT", "logSize (-logsize) needs a log file (-logfile)");
  }
  const rotation =
    options.logSize === undefined
      ? undefined
      : { maxBytes: options.logSize, count: options.logCount ?? DEFAULT_LOG_COUNT };
  const file = options.logFile === undefined ? undefined : await openLogFile(options.logFile, rotation);
  const connLogDir = options.connLogs === undefined ? undefined : await makeConnLogDir(options.connLogs);
  const pcap =
    options.pcap === undefined
      ? undefined
      : await openPcapFile(options.pcap, reportLogError, (fifo) =>
          errorsOut.write(`tcp-relay: waiting for a reader to open the FIFO ${fifo} (-pcap)\n`),
        );

  const server = createServer({ allowHalfOpen: true, pauseOnConnect: true, noDelay: true });
  try {
    await listen(server, options.localPort, options.bind);
  } catch (error) {
    await file?.destination.close();
    await pcap?.writer.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  let control: Awaited<ReturnType<typeof startControlApi>> | undefined;
  if (options.control !== undefined && faults !== null) {
    const listenAt = options.bind === undefined ? `[::]:${port}` : `${options.bind}:${port}`;
    try {
      control = await startControlApi(options.control, faults, {
        listen: listenAt,
        upstream: `${options.host}:${options.remotePort}`,
      });
    } catch (error) {
      server.close();
      await file?.destination.close();
      await pcap?.writer.close();
      throw error;
    }
  }

  const json = options.json ? new IsoTimestamp(clock) : null;
  let startup = startupLines(options, port, file?.path, json);
  if (control !== undefined) {
    const text = `control API for toxiproxy clients on http://127.0.0.1:${control.port}/proxies/${CONTROL_PROXY_NAME}`;
    startup +=
      json === null
        ? `${text}\n`
        : `{"time":"${json.text()}","type":"start","text":${JSON.stringify(text)},"controlPort":${control.port}}\n`;
  }
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
    pcap:
      pcap === undefined
        ? null
        : { writer: pcap.writer, clock: options.pcapClock ?? microClock, tcpChecksums: !pcap.live },
    logQueue: new ChunkLogQueue(),
    faults,
    connLogs: connLogDir === undefined ? null : { dir: connLogDir, onError: reportLogError },
    http: options.http
      ? { stallMs: Math.round((options.stallSeconds ?? DEFAULT_STALL_SECONDS) * 1000), har }
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
    const n = accepted++;
    if (faults !== null && refuseIfAsked(n, client, context, faults)) return;
    connections.add(new RelayConnection(n, client, context));
  });
  // Accept failures (too many open files, ...) must not stop the relay; they are reported.
  server.on("error", (error: NodeJS.ErrnoException) => {
    errorsOut.write(`tcp-relay: accepting a connection failed (${error.code ?? error.message})\n`);
  });

  let closed: Promise<void> | undefined;
  return {
    port,
    faults,
    controlPort: control?.port ?? null,
    writeHar: () => har?.write() ?? Promise.resolve(),
    get accepted() {
      return accepted;
    },
    close() {
      closed ??= (async () => {
        server.close();
        await control?.close();
        if (connections.size > 0) {
          const allClosed = new Promise<void>((done) => {
            closing = done;
          });
          for (const c of connections) c.destroy();
          await allClosed;
        }
        await har?.write().catch((error: Error) => {
          errorsOut.write(`tcp-relay: cannot write the HAR file ${har.path} (${error.message})\n`);
        });
        await log?.close();
        await pcap?.writer.close();
        await Promise.all(connectionLogsClosing);
      })();
      return closed;
    },
  };
}
