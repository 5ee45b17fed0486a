import { open } from "node:fs/promises";
import { join } from "node:path";
import type { ByteSink } from "./byte-sink.js";
import type { DirectionLog } from "./direction-pump.js";
import type { DirectionWriter } from "./direction-writer.js";
import type { EntryAssembler } from "./entry-assembler.js";
import { EntryWriter } from "./entry-writer.js";
import type { HarRecorder } from "./har-recorder.js";
import { HexFormatter } from "./hex-formatter.js";
import { HttpExchangeView } from "./http-exchange-view.js";
import { type HttpRecordWriter, JsonHttpRecordWriter, TextHttpRecordWriter } from "./http-record-writer.js";
import { JsonEntryWriter } from "./json-entry-writer.js";
import { LineAssembler } from "./line-assembler.js";
import { FileDestination, type LogDestination } from "./log-destinations.js";
import { LogWriter } from "./log-writer.js";
import { TeeSink } from "./tee-sink.js";
import type { Clock, IsoTimestamp, TimestampPrefix } from "./timestamp.js";

/** How every connection of a relay is logged (null parts are off). */
export interface LogSettings {
  log: LogWriter | null;
  stamp: TimestampPrefix | null;
  /** With `-json`: the shared `time` of the JSON lines (then `stamp` and the indent are unused). */
  json: IsoTimestamp | null;
  binary: boolean;
  /** With `-http`: how long a request may wait for its response before a `stalled` line; with `-har`, the recorder. */
  http: { stallMs: number; har: HarRecorder | null } | null;
  /** With `-connlogs`: the folder of the per-connection files, and where their failures go. */
  connLogs: { dir: string; onError: (destination: LogDestination, error: Error) => void } | null;
  clock: Clock;
}

/** The logs of one connection: each direction's, and what to close when the connection ends. */
export interface ConnectionLogs {
  c: DirectionLog;
  s: DirectionLog;
  /** Flushes and closes the connection's own file (`-connlogs`); nothing to do otherwise. */
  close(): Promise<void>;
  /** With `-http`: the view, which marks the exchanges a fault hit. */
  http: HttpExchangeView | null;
}

// A connection's own log is small and there may be many at once: a smaller batch than the relay's.
const CONNECTION_BATCH_BYTES = 16 * 1024;

/**
 * Builds the two directions' logs of connection `n`: the writer of the chosen format, and either
 * the byte assemblers (text lines or hex rows) or, with `-http`, the HTTP view, which hands bytes
 * that are not HTTP to byte assemblers made on demand at their true offsets. With `-connlogs` the
 * lines also go to `<dir>/<n>.log`.
 */
export function connectionLogs(settings: LogSettings, n: number, indent: string): ConnectionLogs | null {
  const { log, stamp, json, binary, http, connLogs } = settings;
  let own: LogWriter | null = null;
  if (connLogs !== null) {
    const path = join(connLogs.dir, `${n}.log`);
    own = new LogWriter([new FileDestination(`log file ${path}`, open(path, "a"))], {
      batchBytes: CONNECTION_BATCH_BYTES,
      onError: connLogs.onError,
    });
  }
  const sink: ByteSink | null = log !== null && own !== null ? new TeeSink(log, own) : (log ?? own);
  if (sink === null) return null;
  const logs = [log, own].filter((l) => l !== null);
  const writer = (dir: "C" | "S"): DirectionWriter =>
    json !== null
      ? new JsonEntryWriter(sink, n, dir, json)
      : new EntryWriter(sink, `${dir}-${n}-`, indent, stamp);
  const writers = { C: writer("C"), S: writer("S") };
  const bytesFrom = (dir: "C" | "S", offset: number): EntryAssembler =>
    binary ? new HexFormatter(writers[dir], offset) : new LineAssembler(writers[dir], offset);
  const time = json ?? stamp;
  const close = async () => {
    await own?.close();
  };
  if (http === null) {
    return {
      c: { logs, writer: writers.C, assembler: bytesFrom("C", 0), stamp: time },
      s: { logs, writer: writers.S, assembler: bytesFrom("S", 0), stamp: time },
      close,
      http: null,
    };
  }
  const records: HttpRecordWriter =
    json !== null
      ? new JsonHttpRecordWriter(sink, n, json)
      : new TextHttpRecordWriter(sink, n, indent, stamp);
  const view = new HttpExchangeView(n, records, bytesFrom, settings.clock, time, http.stallMs, http.har);
  return {
    c: { logs, writer: writers.C, assembler: view.client, stamp: time },
    s: { logs, writer: writers.S, assembler: view.server, stamp: time },
    close,
    http: view,
  };
}
