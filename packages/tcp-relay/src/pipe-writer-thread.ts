import {
  CONSUMED,
  DRAINED_BYTES,
  PRODUCED,
  RING_BYTES,
  RING_MASK,
  RUNNING,
  STATE,
  WAKE,
  WANT_DRAIN,
} from "./pipe-ring.js";

// A full pipe (EAGAIN) is tried again after a pause that doubles from 50 µs to 2 ms: a fast
// reader (cat, tshark keeping up) has emptied 64 KiB within the first, a stalled one costs at most
// 500 wake-ups a second. A blocking write would wait in the kernel, where nothing but the reader
// could end the wait, and the process waits for this thread when it exits.
const FIRST_PAUSE_MS = 0.05;
const LAST_PAUSE_MS = 2;

/**
 * The code of the thread that writes a live capture (`-pcap -` into a pipe, `-pcap <fifo>`),
 * given to `new Worker(..., { eval: true })` with a `PipeWriterData` as its `workerData`: it sleeps
 * until the event loop has copied a batch into the ring, writes everything the ring holds (up to
 * its end) with one write(2), and goes on until the ring is empty and the event loop has asked it
 * to close (the event loop then closes the pipe). The event loop thus never makes the pipe's system calls nor
 * waits for its reader. It is plain JavaScript in a string, not a module of its own, so that the
 * same code runs from the built files and from the TypeScript sources (a worker thread does not
 * inherit tsx's loader).
 */
export const PIPE_WRITER_THREAD = `
const { writeSync } = require("node:fs");
const { parentPort, workerData } = require("node:worker_threads");
const { fd, ring, control } = workerData;
const bytes = new Uint8Array(ring);
const words = new Int32Array(control);
let pause = ${FIRST_PAUSE_MS};
try {
  for (;;) {
    // Read before the counters: a signal sent after this point ends the wait below at once.
    const wake = Atomics.load(words, ${WAKE});
    const produced = Atomics.load(words, ${PRODUCED});
    const consumed = Atomics.load(words, ${CONSUMED});
    const used = (produced - consumed) >>> 0;
    if (used === 0) {
      if (Atomics.load(words, ${STATE}) !== ${RUNNING}) break;
      Atomics.wait(words, ${WAKE}, wake);
      continue;
    }
    const start = consumed & ${RING_MASK};
    let written;
    try {
      written = writeSync(fd, bytes, start, Math.min(used, ${RING_BYTES} - start));
    } catch (error) {
      if (error.code !== "EAGAIN") throw error;
      Atomics.wait(words, ${STATE}, Atomics.load(words, ${STATE}), pause);
      pause = Math.min(pause * 2, ${LAST_PAUSE_MS});
      continue;
    }
    pause = ${FIRST_PAUSE_MS};
    const now = (consumed + written) | 0;
    Atomics.store(words, ${CONSUMED}, now);
    const left = (Atomics.load(words, ${PRODUCED}) - now) >>> 0;
    if (left <= ${DRAINED_BYTES} && Atomics.compareExchange(words, ${WANT_DRAIN}, 1, 0) === 1) {
      parentPort.postMessage("drained");
    }
  }
} catch (error) {
  parentPort.postMessage({ error: { code: error.code ?? "EIO", message: error.message } });
}
`;
