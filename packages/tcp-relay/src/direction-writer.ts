import type { Fault } from "./fault-spec.js";

/** Bytes a fault dropped: how many, from which offset of the direction's stream. */
export interface DroppedBytes {
  dropped: number;
  at: number;
}

/**
 * What the assemblers and the pump write for one direction of one connection. Two formats
 * implement it: the classic text lines (`EntryWriter`) and JSON lines (`JsonEntryWriter`).
 */
export interface DirectionWriter {
  /** One text-mode entry for `src[start..end)`, whose first byte is at stream offset `offset`. */
  textEntry(src: Uint8Array, start: number, end: number, offset: number): void;
  /** One binary-mode entry of at most 16 bytes. */
  hexEntry(src: Uint8Array, start: number, end: number, offset: number): void;
  /**
   * The direction ended after `bytes` bytes; `rate` is kb/s with one decimal; `faults` counts
   * each fault kind's acts (JSON only: the classic line stays as it is).
   */
  finished(bytes: number, rate: string, faults?: Record<string, number>): void;
  /** The server could not be reached (written on the server direction). */
  connectError(message: string): void;
  /**
   * A fault acted on the connection for the first time (`F-<conn>-<side>-<kind> <parameters>`), or,
   * with `dropped`, the bytes it dropped in that direction.
   */
  fault(conn: number, side: string, kind: string, fault: Fault | null, dropped: DroppedBytes | null): void;
}

/** What refreshes the shared time prefix; called once per received chunk, not per entry. */
export interface TimeSource {
  refresh(): void;
}
