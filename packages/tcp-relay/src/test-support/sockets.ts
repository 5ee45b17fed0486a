// Real-socket plumbing shared by the relay's tests: servers on 127.0.0.1 port 0, clients that
// collect what they receive, and a console stand-in that records the relay's output.
import { once } from "node:events";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";

/** A Writable that keeps everything written to it, like a terminal would show it. */
export class Transcript extends Writable {
  readonly #parts: Buffer[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.#parts.push(Buffer.from(chunk));
    done();
  }
  text(): string {
    return Buffer.concat(this.#parts).toString("utf8");
  }
}

/** Starts a half-open-capable server on 127.0.0.1 (port 0 unless given). */
export async function listenLocal(
  onConnection: (socket: Socket) => void,
  port = 0,
): Promise<Server & { port: number }> {
  const server = createServer({ allowHalfOpen: true }, onConnection);
  server.listen(port, "127.0.0.1");
  await once(server, "listening");
  return Object.assign(server, { port: (server.address() as AddressInfo).port });
}

/** A port that was free a moment ago (nothing listens on it now). */
export async function freePort(): Promise<number> {
  const server = await listenLocal(() => {});
  const port = server.port;
  await new Promise((done) => server.close(done));
  return port;
}

/** Connects to 127.0.0.1:port with half-open allowed, collecting everything received. */
export async function dial(port: number): Promise<Socket & { received: () => Buffer }> {
  const socket = connect({ host: "127.0.0.1", port, allowHalfOpen: true });
  const parts: Buffer[] = [];
  socket.on("data", (c: Buffer) => parts.push(c));
  await once(socket, "connect");
  return Object.assign(socket, { received: () => Buffer.concat(parts) });
}

/** Resolves when the socket's read side has ended (the peer's FIN), or rejects on error. */
export async function ended(socket: Socket): Promise<void> {
  if (socket.readableEnded) return;
  await once(socket, "end");
}

/** Polls `condition` every few milliseconds until it holds, failing after `ms`. */
export async function waitFor(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Reads from the socket until `n` bytes have arrived. */
export async function receiveBytes(socket: Socket & { received: () => Buffer }, n: number): Promise<Buffer> {
  await waitFor(() => socket.received().length >= n, `${n} bytes`);
  return socket.received();
}
