import { constants, open as openFd } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { Socket } from "node:net";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { FileDestination, type LogDestination, StreamDestination } from "./log-destinations.js";
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
 * pauses the relay when the disk falls behind rather than growing without bound. `-` is standard
 * output; there, when it is a pipe, and to a FIFO, each batch (the end of every event-loop turn)
 * is written at once as a stream, so that every packet is in the pipe before the relay waits for
 * more traffic and a reader such as `wireshark -k -i -` follows the conversation live (libpcap's
 * stream format is the file format read as it comes: the global header, then one record per
 * packet). Such a live capture (`live`) gets TCP checksums of 0, not computed over every relayed
 * byte: Wireshark and tshark do not check them by default (`tcp.check_checksum: FALSE`).
 *
 * @example
 * const pcap = await openPcapFile("relay.pcap", (d, e) => console.error(d.name, e));
 * // ... PcapConnection writes packets into pcap.writer
 * await pcap.writer.close();
 */
export async function openPcapFile(
  file: string,
  onError: LogWriterOptions["onError"],
  /** Called once when the file is a FIFO that no reader has opened yet (the relay waits). */
  onWaiting: (path: string) => void = () => {},
): Promise<{ path: string; writer: LogWriter; live: boolean }> {
  const path = file === "-" ? "-" : resolve(file);
  const destination = file === "-" ? await standardOutput() : await captureFile(path, onWaiting);
  const writer = new LogWriter([destination], { batchBytes: PCAP_BATCH_BYTES, onError });
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
  return { path, writer, live: destination instanceof StreamDestination };
}

const openRaw = promisify(openFd);

/** How often a FIFO without a reader is tried again. */
const FIFO_POLL_MS = 100;

/**
 * Opens a FIFO for writing once it has a reader. A plain blocking open would wait for the reader
 * in a thread of the pool, which nothing can interrupt and which the process waits for when it
 * exits: a Ctrl-C then could not end the relay. A non-blocking open fails with ENXIO until a
 * reader is there (POSIX open(2), O_NONBLOCK on a FIFO), so it is tried every 100 ms; once it
 * succeeds the real open returns at once, and the probe is closed only after it, so that the
 * reader never sees its writer go (an end of file) in between.
 */
async function openFifo(path: string, onWaiting: (path: string) => void): Promise<number> {
  for (let tries = 0; ; tries++) {
    let probe: FileHandle | undefined;
    try {
      probe = await open(path, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENXIO") throw error;
    }
    if (probe !== undefined) {
      try {
        return await openRaw(path, "w");
      } finally {
        await probe.close();
      }
    }
    if (tries === 0) onWaiting(path);
    await sleep(FIFO_POLL_MS);
  }
}

/**
 * A pipe (a FIFO, standard output into `| wireshark -k -i -`) written as a stream socket on the
 * event loop, not by the thread pool: a reader that stops reading then holds back only the
 * stream's queue (which pauses the relay, as a slow log does), never a pool thread blocked in a
 * write that the process would wait for when it exits. The stream owns the descriptor.
 */
function pipeDestination(name: string, fd: number): LogDestination {
  return new StreamDestination(name, new Socket({ fd, readable: false, writable: true }), true);
}

async function captureFile(path: string, onWaiting: (path: string) => void): Promise<LogDestination> {
  const name = `capture file ${path}`;
  try {
    // A FIFO is opened once a reader (wireshark -k -i <fifo>, tshark -i <fifo>) has opened it.
    if ((await stat(path).catch(() => null))?.isFIFO())
      return pipeDestination(name, await openFifo(path, onWaiting));
    return new FileDestination(name, await open(path, "w"));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "open failed";
    throw new RelayError("TCP_RELAY_LOG_FILE", `cannot open capture file ${path} for writing (${code})`, {
      cause: error,
    });
  }
}

/**
 * `-pcap -`: standard output. A pipe is reopened through /dev/stdout and written as a stream
 * (`pipeDestination`); a file is reopened and written like the capture file; a socket (a parent
 * process's stdio) cannot be reopened and is written through process.stdout. A terminal is
 * refused: a capture is binary.
 */
async function standardOutput(): Promise<LogDestination> {
  if (process.stdout.isTTY) {
    throw new RelayError(
      "TCP_RELAY_BAD_ARGUMENT",
      "-pcap - writes the capture to standard output, which is a terminal: pipe it to a reader (| wireshark -k -i -, | tshark -i -) or redirect it to a file",
    );
  }
  const name = "the capture on standard output";
  const kind = await stat("/dev/stdout").catch(() => null);
  try {
    if (kind?.isFIFO()) return pipeDestination(name, await openRaw("/dev/stdout", "a"));
    if (kind?.isFile()) return new FileDestination(name, await open("/dev/stdout", "a"));
  } catch {
    // Not reopenable after all: written through process.stdout below.
  }
  return new StreamDestination(name, process.stdout, false);
}
