/**
 * What the assemblers and the pump write for one direction of one connection. Two formats
 * implement it: the classic text lines (`EntryWriter`) and JSON lines (`JsonEntryWriter`).
 */
export interface DirectionWriter {
  /** One text-mode entry for `src[start..end)`, whose first byte is at stream offset `offset`. */
  textEntry(src: Uint8Array, start: number, end: number, offset: number): void;
  /** One binary-mode entry of at most 16 bytes. */
  hexEntry(src: Uint8Array, start: number, end: number, offset: number): void;
  /** The direction ended after `bytes` bytes; `rate` is kb/s with one decimal. */
  finished(bytes: number, rate: string): void;
  /** The server could not be reached (written on the server direction). */
  connectError(message: string): void;
}

/** What refreshes the shared time prefix; called once per received chunk, not per entry. */
export interface TimeSource {
  refresh(): void;
}
