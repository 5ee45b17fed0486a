/**
 * Cuts one direction's byte stream into log entries. Implementations are pure (no I/O, no clock)
 * and give the same entries for the same bytes however TCP happens to segment them.
 */
export interface EntryAssembler {
  /** Feeds the next bytes of the stream; complete entries are written at once. */
  push(chunk: Buffer): void;
  /** The direction ended: writes whatever is held (a last line without LF, a short hex row). */
  end(): void;
}
