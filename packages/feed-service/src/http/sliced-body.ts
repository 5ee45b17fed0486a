/**
 * A large answer written to its socket a slice at a time, one slice per turn of the event loop. A
 * single write of a megabyte to a client on the same machine holds the request thread for
 * milliseconds (the kernel carries the bytes to the reader inside the call, and on a busy machine
 * the thread may lose its core in the middle of it), and in that time no other request is read or
 * answered: with 4 clients asking for 1,000-row answers, a getCategories waited for them. Between
 * slices, other requests are served; a slow reader is waited for (backpressure), as with any stream.
 */
import type { ServerResponse } from "node:http";
import { Readable } from "node:stream";

/** Bytes written per turn of the event loop; smaller answers are written at once. */
export const sliceBytes = 64 * 1024;

export class SlicedBody extends Readable {
  readonly #bytes: Buffer;
  #at = 0;

  constructor(bytes: Buffer) {
    super({ highWaterMark: sliceBytes });
    this.#bytes = bytes;
  }

  override _read(): void {
    // setImmediate, not a microtask: the next slice waits until pending I/O has been handled.
    setImmediate(() => {
      if (this.destroyed) return;
      const end = Math.min(this.#at + sliceBytes, this.#bytes.length);
      this.push(this.#bytes.subarray(this.#at, end));
      this.#at = end;
      if (end >= this.#bytes.length) this.push(null);
    });
  }
}

/**
 * What to hand Fastify's `reply.send` for `bytes`: the bytes themselves when small, else a
 * SlicedBody. The caller sets Content-Length, so the framing is the same either way.
 *
 * @example
 * reply.header("content-length", bytes.length).send(answerBody(bytes));
 */
export function answerBody(bytes: Buffer): Buffer | SlicedBody {
  return bytes.length > sliceBytes ? new SlicedBody(bytes) : bytes;
}

/** Ends a bare node:http response with `bytes`, in slices when large (headers already written). */
export function endWithBody(res: ServerResponse, bytes: Buffer): void {
  if (bytes.length <= sliceBytes) res.end(bytes);
  else new SlicedBody(bytes).pipe(res);
}
