import { packageVersion } from "./package-version.js";
import { RelayError } from "./relay-error.js";
import { parseRelayArguments } from "./relay-options.js";
import { startRelay } from "./relay-server.js";

/** Usage text, shaped after the classic proxy.jar command line. */
export const usage = `usage: tcp-relay <host> <remoteport> <localport> [options]

Relays every TCP connection on <localport> to <host>:<remoteport> and logs the conversation.
  -q                 quiet: no entries on the console (start-up lines and errors still are)
  -b                 binary mode: hex and characters, 16 bytes per entry
  -t                 timestamp every entry and Finished line
  -tms               the same with milliseconds (YYYY-MM-DD HH:MM:SS.mmm)
  -logfile <file>    also append the log to <file>
  -logsize <bytes>   rotate the log file at this size (suffix k, m, g): name.1 ... name.n
  -logcount <n>      with -logsize: rotated files kept (default 5)
  -connlogs <dir>    also one log file per connection, <dir>/<n>.log
  -pcap <file>       also write the conversation as a libpcap file (Wireshark, tshark);
                     - for standard output (the console then goes to standard error) and a
                     FIFO get every packet at once: tcp-relay ... -pcap - | wireshark -k -i -
  -i [n]             indent entries by connection slot (n slots, default 16; 0 = none)
  -json              the log as JSON lines (start, entry, finished, error objects)
  -http              HTTP view: one line per request/response pair (method, target, status,
                     body sizes, time to first byte, total); non-HTTP traffic as bytes
  -stall <seconds>   with -http: a "stalled" line for a request without response (default 10)
  -har <file>        with -http: the exchanges as HAR 1.2, written when the relay stops and on
                     SIGUSR2 (browsers' developer tools and HAR viewers open it)
  -harbody <bytes>   with -har: bytes of each body kept (suffix k, m, g; default 1m)
  -bind <address>    listen on this local address only (default: all interfaces)
Faults on purpose (<dir> is c2s, s2c or both; @N: only every Nth connection; ± may be written +-):
  -delay <dir>:<ms>[±<jitter>]            hold each chunk that long, order kept
  -rate <dir>:<KiB/s>                     forward at most that many KiB per second
  -slice <dir>:<bytes>[±<var>][/<ms>]     forward in pieces of about that size, that far apart
  -limit <dir>:<bytes>                    close the connection after that many bytes
  -reset <dir>:<ms>                       reset both sides that long after the connection opens
  -blackhole <dir>[:<ms>]                 read and drop from then on; nothing closes
  -refuse @N                              accept and at once close every Nth connection
  -faults <file>                          the same options from a JSON file: {"delay": "c2s:200"}
  -control <port>                         toxiproxy's HTTP API on 127.0.0.1:<port>, proxy "tcp-relay"
  --help             show this help
  --version          show the version
<host> may be a name, an IPv4 or an IPv6 address. Exit codes: 0 after SIGINT/SIGTERM,
1 when the local port cannot be used, 2 for bad arguments.`;

/**
 * Runs the relay until SIGINT or SIGTERM; resolves to the process exit code.
 *
 * @example
 * process.exitCode = await main(["example.com", "80", "8080", "-t"]);
 */
export async function main(argv: string[]): Promise<number> {
  // Signals are taken from the start, so that one arriving while the relay starts up also ends
  // it cleanly (exit 0) rather than by the default action (killed, no log flushed).
  let signals = 0;
  let onSignal: (() => void) | undefined;
  const stop = () => {
    signals++;
    onSignal?.();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    return await runUntilStopped(
      argv,
      () => signals,
      (listener) => {
        onSignal = listener;
      },
    );
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

/** How long shutting down may take before the relay stops waiting for slow outputs. */
export const SHUTDOWN_GRACE_MS = 5000;

async function runUntilStopped(
  argv: string[],
  signals: () => number,
  onSignal: (listener: () => void) => void,
): Promise<number> {
  let relay: Awaited<ReturnType<typeof startRelay>> | null;
  let harFile: string | undefined;
  try {
    const args = parseRelayArguments(argv);
    harFile = args.har;
    if (args.help) {
      process.stdout.write(`${usage}\n`);
      return 0;
    }
    if (args.version) {
      process.stdout.write(`tcp-relay ${packageVersion()}\n`);
      return 0;
    }
    const starting = startRelay({
      host: args.host,
      remotePort: args.remotePort,
      localPort: args.localPort,
      bind: args.bind,
      quiet: args.quiet,
      binary: args.binary,
      timestamps: args.timestamps,
      timestampMillis: args.timestampMillis,
      logFile: args.logFile,
      indent: args.indent,
      json: args.json,
      http: args.http,
      logSize: args.logSize,
      logCount: args.logCount,
      connLogs: args.connLogs,
      pcap: args.pcap,
      stallSeconds: args.stallSeconds,
      faults: args.faults,
      faultsFile: args.faultsFile,
      control: args.control,
      har: args.har,
      harBody: args.harBody,
    });
    // Starting can wait (a capture FIFO waits for its reader): a signal meanwhile ends it too.
    relay = await new Promise<typeof relay>((done, fail) => {
      starting.then(done, fail);
      onSignal(() => done(null));
      if (signals() > 0) done(null);
    });
    if (relay === null) {
      starting.then((r) => r.close()).catch(() => {});
      return 0;
    }
  } catch (error) {
    if (error instanceof RelayError) {
      process.stderr.write(`tcp-relay: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
  // SIGUSR2 writes the HAR file of the exchanges so far, the relay going on.
  const running = relay;
  const writeHar = () => {
    running
      .writeHar()
      .catch((error: Error) =>
        process.stderr.write(`tcp-relay: cannot write the HAR file (${error.message})\n`),
      );
  };
  if (harFile !== undefined) process.on("SIGUSR2", writeHar);
  if (signals() === 0) await new Promise<void>((done) => onSignal(done));
  process.off("SIGUSR2", writeHar);
  // Open connections are cut (their Finished lines written) and the log flushed; an output that
  // does not take the last batch (a console nobody reads) is given up on after the grace time,
  // and a second signal stops waiting at once.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    relay.close(),
    new Promise<void>((done) => {
      timer = setTimeout(done, SHUTDOWN_GRACE_MS);
      onSignal(done);
    }),
  ]);
  clearTimeout(timer);
  return 0;
}
