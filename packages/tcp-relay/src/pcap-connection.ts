import { isIPv4 } from "node:net";
import type { ByteSink } from "./byte-sink.js";

/** Where packets go: headers are written into the buffer, payloads of any size are appended. */
export interface CaptureSink extends ByteSink {
  /** Adds `bytes` after what has been written; the sink may keep them rather than copy them. */
  append(bytes: Buffer): void;
}

/** One endpoint as the capture shows it. */
export interface Endpoint {
  address: string;
  port: number;
}

const SYN = 0x02;
const FIN = 0x01;
const RST = 0x04;
const PSH = 0x08;
const ACK = 0x10;
const TCP_HEADER = 20;
const RECORD_HEADER = 16;
// At most this much payload per packet: an IPv4 total length (headers included) fits in 16 bits.
const MAX_SEGMENT = 65_535 - 40;
// Payloads below this are copied after their headers; larger ones are appended as they are (no
// copy), which would cost more than a copy for a few bytes.
const APPEND_FROM = 1024;
const WINDOW = 65_535;

/** The relay runs on the same clock for every connection: microseconds, from the high-resolution timer. */
export type MicroClock = () => number;
export const microClock: MicroClock = () => Math.round((performance.timeOrigin + performance.now()) * 1000);

function ipv4Bytes(address: string): number[] | null {
  const plain = address.startsWith("::ffff:") ? address.slice(7) : address;
  return isIPv4(plain) ? plain.split(".").map(Number) : null;
}

function ipv6Bytes(address: string): number[] {
  const v4 = ipv4Bytes(address);
  if (v4 !== null) return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4];
  const zone = address.indexOf("%");
  const plain = zone === -1 ? address : address.slice(0, zone);
  const [head, tail] = plain.includes("::") ? plain.split("::") : [plain, undefined];
  const headGroups = head === "" ? [] : head!.split(":");
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = [
    ...headGroups,
    ...Array(8 - headGroups.length - tailGroups.length).fill("0"),
    ...tailGroups,
  ];
  return groups.flatMap((g) => {
    const v = Number.parseInt(g, 16);
    return [v >> 8, v & 0xff];
  });
}

/** Adds `buf[start..end)` as big-endian 16-bit words to `sum` (one's complement, folded later). */
function sumWords(buf: Uint8Array, start: number, end: number, sum: number): number {
  let k = start;
  // Folding every 2^15 words keeps the sum within a double's exact integers with margin.
  for (; k + 1 < end; k += 2) {
    sum += (buf[k]! << 8) | buf[k + 1]!;
    if (sum > 0x7fffffff) sum = (sum & 0xffff) + Math.floor(sum / 0x10000);
  }
  if (k < end) sum += buf[k]! << 8;
  return sum;
}

/**
 * The same sum over `buf[start..end)` read as 32-bit little-endian words when the start is
 * 4-byte aligned: a quarter of the loads. One's complement sums do not depend on byte order
 * (RFC 1071 §2(B)): the little-endian sum, folded to 16 bits, is the big-endian one byte-swapped.
 */
function sumPayload(buf: Uint8Array, start: number, end: number, sum: number): number {
  const offset = buf.byteOffset + start;
  const words = (end - start) >>> 2;
  if (offset % 4 !== 0 || words < 16) return sumWords(buf, start, end, sum);
  const u32 = new Uint32Array(buf.buffer, offset, words);
  let low = 0;
  let high = 0;
  // 16,384 words of a 64 KiB segment stay far below 2^53 in each half.
  for (let k = 0; k < words; k++) {
    const w = u32[k]!;
    low += w & 0xffff;
    high += w >>> 16;
  }
  let le = low + high;
  while (le > 0xffff) le = (le & 0xffff) + Math.floor(le / 0x10000);
  sum += ((le & 0xff) << 8) | (le >>> 8);
  return sumWords(buf, start + words * 4, end, sum);
}

function fold(sum: number): number {
  while (sum > 0xffff) sum = (sum & 0xffff) + Math.floor(sum / 0x10000);
  return ~sum & 0xffff;
}

/**
 * One relayed connection as a TCP conversation between the client and the server (their real
 * addresses and ports, as if the relay were not there): a handshake when the server answers,
 * a data segment per chunk (split where an IPv4 length would overflow) acknowledged by the other
 * side, FIN and its ACK for each half-close, RST when the connection is torn down. Sequence and acknowledgement
 * numbers follow the bytes, so Wireshark and tshark reassemble and follow the stream. IPv4 when
 * both ends are IPv4, else IPv6 (IPv4 addresses mapped). IP checksums are computed, and TCP ones
 * unless `tcpChecksums` is false: then they are 0 and no payload byte is read.
 *
 * @example
 * const tcp = new PcapConnection(sink, { address: "10.0.0.1", port: 51000 }, { address: "10.0.0.2", port: 80 }, microClock);
 * tcp.open(); tcp.data("C", Buffer.from("GET / HTTP/1.1\r\n\r\n")); tcp.end("C", true);
 */
export class PcapConnection {
  readonly #v4: boolean;
  readonly #addr: { C: number[]; S: number[] };
  readonly #port: { C: number; S: number };
  /** Next sequence number each side sends. */
  readonly #next = { C: 0x1000_0000, S: 0x5000_0000 };
  #ipId = 0;
  #reset = false;
  readonly #finished = { C: false, S: false };
  readonly #sink: CaptureSink;
  readonly #clock: MicroClock;
  readonly #tcpChecksums: boolean;

  constructor(sink: CaptureSink, client: Endpoint, server: Endpoint, clock: MicroClock, tcpChecksums = true) {
    this.#sink = sink;
    this.#clock = clock;
    this.#tcpChecksums = tcpChecksums;
    const c4 = ipv4Bytes(client.address);
    const s4 = ipv4Bytes(server.address);
    this.#v4 = c4 !== null && s4 !== null;
    this.#addr = this.#v4
      ? { C: c4!, S: s4! }
      : { C: ipv6Bytes(client.address), S: ipv6Bytes(server.address) };
    this.#port = { C: client.port, S: server.port };
  }

  /** The three-way handshake. */
  open(): void {
    this.#packet("C", SYN, this.#next.C, 0, null, 0, 0);
    this.#packet("S", SYN | ACK, this.#next.S, this.#next.C + 1, null, 0, 0);
    this.#next.C = (this.#next.C + 1) >>> 0;
    this.#next.S = (this.#next.S + 1) >>> 0;
    this.#packet("C", ACK, this.#next.C, this.#next.S, null, 0, 0);
  }

  /** Bytes sent by `dir` (`C` client, `S` server), then the other side's acknowledgement. */
  data(dir: "C" | "S", bytes: Uint8Array): void {
    if (this.#reset) return;
    const chunk = Buffer.isBuffer(bytes)
      ? bytes
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const other = dir === "C" ? "S" : "C";
    for (let i = 0; i < chunk.length; i += MAX_SEGMENT) {
      const end = Math.min(chunk.length, i + MAX_SEGMENT);
      this.#packet(dir, PSH | ACK, this.#next[dir], this.#next[other], chunk, i, end);
      this.#next[dir] = (this.#next[dir] + end - i) >>> 0;
    }
    this.#packet(other, ACK, this.#next[other], this.#next[dir], null, 0, 0);
  }

  /** `dir` finished sending: FIN and its ACK when it closed cleanly, else RST (once). */
  end(dir: "C" | "S", clean: boolean): void {
    if (this.#reset || this.#finished[dir]) return;
    this.#finished[dir] = true;
    const other = dir === "C" ? "S" : "C";
    if (!clean) {
      this.#reset = true;
      this.#packet(dir, RST | ACK, this.#next[dir], this.#next[other], null, 0, 0);
      return;
    }
    this.#packet(dir, FIN | ACK, this.#next[dir], this.#next[other], null, 0, 0);
    this.#next[dir] = (this.#next[dir] + 1) >>> 0;
    this.#packet(other, ACK, this.#next[other], this.#next[dir], null, 0, 0);
  }

  #packet(
    dir: "C" | "S",
    flags: number,
    seq: number,
    ack: number,
    payload: Buffer | null,
    start: number,
    end: number,
  ): void {
    const length = end - start;
    const ipHeader = this.#v4 ? 20 : 40;
    const captured = ipHeader + TCP_HEADER + length;
    const sink = this.#sink;
    const appended = length >= APPEND_FROM;
    sink.reserve(RECORD_HEADER + captured - (appended ? length : 0));
    const buf = sink.buf;
    let p = sink.pos;
    const micros = this.#clock();
    const seconds = Math.floor(micros / 1e6);
    buf.writeUInt32LE(seconds, p);
    buf.writeUInt32LE(micros - seconds * 1e6, p + 4);
    buf.writeUInt32LE(captured, p + 8);
    buf.writeUInt32LE(captured, p + 12);
    p += RECORD_HEADER;
    const src = this.#addr[dir];
    const dst = this.#addr[dir === "C" ? "S" : "C"];
    const ip = p;
    if (this.#v4) {
      buf[p] = 0x45;
      buf[p + 1] = 0;
      buf.writeUInt16BE(captured, p + 2);
      buf.writeUInt16BE(this.#ipId++ & 0xffff, p + 4);
      buf.writeUInt16BE(0x4000, p + 6); // don't fragment
      buf[p + 8] = 64;
      buf[p + 9] = 6;
      buf.writeUInt16BE(0, p + 10);
      for (let k = 0; k < 4; k++) {
        buf[p + 12 + k] = src[k]!;
        buf[p + 16 + k] = dst[k]!;
      }
      buf.writeUInt16BE(fold(sumWords(buf, p, p + 20, 0)), p + 10);
    } else {
      buf.writeUInt32BE(0x6000_0000, p);
      buf.writeUInt16BE(TCP_HEADER + length, p + 4);
      buf[p + 6] = 6;
      buf[p + 7] = 64;
      for (let k = 0; k < 16; k++) {
        buf[p + 8 + k] = src[k]!;
        buf[p + 24 + k] = dst[k]!;
      }
    }
    p += ipHeader;
    const tcp = p;
    buf.writeUInt16BE(this.#port[dir], p);
    buf.writeUInt16BE(this.#port[dir === "C" ? "S" : "C"], p + 2);
    buf.writeUInt32BE(seq >>> 0, p + 4);
    buf.writeUInt32BE(flags & ACK ? ack >>> 0 : 0, p + 8);
    buf[p + 12] = (TCP_HEADER / 4) << 4;
    buf[p + 13] = flags;
    buf.writeUInt16BE(WINDOW, p + 14);
    buf.writeUInt32BE(0, p + 16); // checksum, urgent pointer
    p += TCP_HEADER;
    if (payload !== null && length > 0 && !appended) {
      if (length > 64) buf.set(payload.subarray(start, end), p);
      else for (let k = start; k < end; k++) buf[p + k - start] = payload[k]!;
    }
    // Off for a live capture: Wireshark does not check TCP checksums by default (tcp.check_checksum: FALSE).
    if (this.#tcpChecksums) {
      // The pseudo-header (addresses, protocol, TCP length), the TCP header and the payload.
      const addrStart = this.#v4 ? ip + 12 : ip + 8;
      let sum = sumWords(buf, addrStart, addrStart + (this.#v4 ? 8 : 32), 6 + TCP_HEADER + length);
      sum = sumWords(buf, tcp, p, sum);
      // Summed from the chunk read, whose start is aligned (its own allocation), not from the batch.
      if (payload !== null && length > 0) sum = sumPayload(payload, start, end, sum);
      buf.writeUInt16BE(fold(sum), tcp + 16);
    }
    if (appended) {
      sink.pos = p;
      sink.append(payload!.subarray(start, end));
    } else sink.pos = p + length;
  }
}
