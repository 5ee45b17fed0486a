import { type FileHandle, open } from "node:fs/promises";
import { resolve } from "node:path";
import { FileDestination } from "./log-destinations.js";
import { LogWriter, type LogWriterOptions } from "./log-writer.js";
import { RelayError } from "./relay-error.js";

/** LINKTYPE_RAW: each record starts with an IPv4 or IPv6 header, so one file holds both. */
const LINKTYPE_RAW = 101;
const SNAPLEN = 262_144;
// Relayed chunks are copied into large batches: fewer, bigger writes to the file.
const PCAP_BATCH_BYTES = 1024 * 1024;

/**
 * The libpcap file of `-pcap`: the classic format (microsecond timestamps, little-endian), written
 * in batches by a `LogWriter` whose buffer the packet writer fills directly; like the log, it
 * pauses the relay when the disk falls behind rather than growing without bound.
 *
 * @example
 * const pcap = await openPcapFile("relay.pcap", (d, e) => console.error(d.name, e));
 * // ... PcapConnection writes packets into pcap.writer
 * await pcap.writer.close();
 */
export async function openPcapFile(
  file: string,
  onError: LogWriterOptions["onError"],
): Promise<{ path: string; writer: LogWriter }> {
  const path = resolve(file);
  let handle: FileHandle;
  try {
    handle = await open(path, "w");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "open failed";
    throw new RelayError("TCP_RELAY_LOG_FILE", `cannot open capture file ${path} for writing (${code})`, {
      cause: error,
    });
  }
  const writer = new LogWriter([new FileDestination(`capture file ${path}`, handle)], {
    batchBytes: PCAP_BATCH_BYTES,
    onError,
  });
  writer.reserve(24);
  const buf = writer.buf;
  const p = writer.pos;
  buf.writeUInt32LE(0xa1b2c3d4, p); // magic: microsecond timestamps
  buf.writeUInt16LE(2, p + 4);
  buf.writeUInt16LE(4, p + 6);
  buf.writeInt32LE(0, p + 8); // thiszone
  buf.writeUInt32LE(0, p + 12); // sigfigs
  buf.writeUInt32LE(SNAPLEN, p + 16);
  buf.writeUInt32LE(LINKTYPE_RAW, p + 20);
  writer.pos = p + 24;
  return { path, writer };
}
