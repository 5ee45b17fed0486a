/**
 * The memory a live capture shares between the event loop, which copies each batch in, and the
 * thread that writes it to the pipe (`PIPE_WRITER_THREAD`): a ring of `RING_BYTES` and a few
 * 32-bit counters. `PRODUCED` and `CONSUMED` count bytes modulo 2^32; the ring's size divides
 * 2^32, so `(produced - consumed) >>> 0` is what the ring holds and `counter & RING_MASK` where.
 */
export const RING_BYTES = 8 * 1024 * 1024;
export const RING_MASK = RING_BYTES - 1;

/** Indexes into the control words (an Int32Array over its own SharedArrayBuffer). */
export const PRODUCED = 0;
export const CONSUMED = 1;
/** `RUNNING`, then `CLOSING` (write what is left, close the pipe and end). */
export const STATE = 2;
/** 1 while the event loop waits to hear that the ring has room again (`DRAINED_BYTES`). */
export const WANT_DRAIN = 3;
/** Counts the event loop's signals (a batch copied in, closing): what the idle thread waits on. */
export const WAKE = 4;
export const CONTROL_WORDS = 5;

export const RUNNING = 0;
export const CLOSING = 1;

/** The ring holds this little or less: the event loop, if it asked, is told (`"drained"`). */
export const DRAINED_BYTES = RING_BYTES / 4;

/** What the writing thread is given (`workerData`). */
export interface PipeWriterData {
  /** The pipe, opened non-blocking: the thread never sleeps in the kernel where nothing could wake it. */
  fd: number;
  ring: SharedArrayBuffer;
  control: SharedArrayBuffer;
}

/** What the writing thread tells the event loop. */
export type PipeWriterMessage = "drained" | { error: { code: string; message: string } };

/** Bytes in the ring. */
export function ringUsed(control: Int32Array): number {
  return (Atomics.load(control, PRODUCED) - Atomics.load(control, CONSUMED)) >>> 0;
}
