import { lookup } from "node:dns/promises";
import { mkdir, open } from "node:fs/promises";
import type { Server } from "node:net";
import { resolve } from "node:path";
import { FileDestination, type LogDestination } from "./log-destinations.js";
import { RelayError } from "./relay-error.js";
import { RotatingFileDestination } from "./rotating-file-destination.js";
import type { IsoTimestamp } from "./timestamp.js";

// The steps `startRelay` takes before the first connection: each fails with a RelayError that
// names what was wrong, so that the command line can report it in one line with its exit code.

// The host is looked up once at start-up so that a typo fails at once (exit 2); connections then
// use the host as given, so that a name with IPv4 and IPv6 addresses gets Node's "happy eyeballs".
export async function checkHost(host: string): Promise<void> {
  try {
    await lookup(host, { all: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "lookup failed";
    throw new RelayError("TCP_RELAY_UNKNOWN_HOST", `cannot resolve host "${host}" (${code})`, {
      cause: error,
    });
  }
}

export async function openLogFile(
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

export async function makeConnLogDir(dir: string): Promise<string> {
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

export function listen(server: Server, port: number, bind: string | undefined): Promise<void> {
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
export function startupLines(
  target: { host: string; remotePort: number },
  port: number,
  logPath: string | undefined,
  json: IsoTimestamp | null,
): string {
  const starting = `starting proxy for ${target.host}:${target.remotePort} on port ${port}`;
  const using = logPath === undefined ? undefined : `using logfile: ${logPath}`;
  if (json === null) return using === undefined ? `${starting}\n` : `${starting}\n${using}\n`;
  const time = json.text();
  let lines = `{"time":"${time}","type":"start","text":${JSON.stringify(starting)},"host":${JSON.stringify(
    target.host,
  )},"remotePort":${target.remotePort},"localPort":${port}}\n`;
  if (using !== undefined) {
    lines += `{"time":"${time}","type":"start","text":${JSON.stringify(using)},"logFile":${JSON.stringify(logPath)}}\n`;
  }
  return lines;
}
