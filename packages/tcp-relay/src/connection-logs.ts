import type { ByteSink } from "./byte-sink.js";
import type { DirectionLog } from "./direction-pump.js";
import type { DirectionWriter } from "./direction-writer.js";
import type { EntryAssembler } from "./entry-assembler.js";
import { EntryWriter } from "./entry-writer.js";
import { HexFormatter } from "./hex-formatter.js";
import { HttpExchangeView } from "./http-exchange-view.js";
import { type HttpRecordWriter, JsonHttpRecordWriter, TextHttpRecordWriter } from "./http-record-writer.js";
import { JsonEntryWriter } from "./json-entry-writer.js";
import { LineAssembler } from "./line-assembler.js";
import type { LogWriter } from "./log-writer.js";
import type { Clock, IsoTimestamp, TimestampPrefix } from "./timestamp.js";

/** How every connection of a relay is logged (null parts are off). */
export interface LogSettings {
  log: LogWriter | null;
  stamp: TimestampPrefix | null;
  /** With `-json`: the shared `time` of the JSON lines (then `stamp` and the indent are unused). */
  json: IsoTimestamp | null;
  binary: boolean;
  /** With `-http`: how long a request may wait for its response before a `stalled` line. */
  http: { stallMs: number } | null;
  clock: Clock;
}

/**
 * Builds the two directions' logs of connection `n`: the writer of the chosen format, and either
 * the byte assemblers (text lines or hex rows) or, with `-http`, the HTTP view, which hands bytes
 * that are not HTTP to byte assemblers made on demand at their true offsets.
 */
export function connectionLogs(
  settings: LogSettings,
  n: number,
  indent: string,
): { c: DirectionLog; s: DirectionLog } | null {
  const { log, stamp, json, binary, http } = settings;
  if (log === null) return null;
  const sink: ByteSink = log;
  const writer = (dir: "C" | "S"): DirectionWriter =>
    json !== null
      ? new JsonEntryWriter(sink, n, dir, json)
      : new EntryWriter(sink, `${dir}-${n}-`, indent, stamp);
  const writers = { C: writer("C"), S: writer("S") };
  const bytesFrom = (dir: "C" | "S", offset: number): EntryAssembler =>
    binary ? new HexFormatter(writers[dir], offset) : new LineAssembler(writers[dir], offset);
  const time = json ?? stamp;
  if (http === null) {
    return {
      c: { log, writer: writers.C, assembler: bytesFrom("C", 0), stamp: time },
      s: { log, writer: writers.S, assembler: bytesFrom("S", 0), stamp: time },
    };
  }
  const records: HttpRecordWriter =
    json !== null
      ? new JsonHttpRecordWriter(sink, n, json)
      : new TextHttpRecordWriter(sink, n, indent, stamp);
  const view = new HttpExchangeView(n, records, bytesFrom, settings.clock, time, http.stallMs);
  return {
    c: { log, writer: writers.C, assembler: view.client, stamp: time },
    s: { log, writer: writers.S, assembler: view.server, stamp: time },
  };
}
