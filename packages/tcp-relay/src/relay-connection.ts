import { connect, type Socket } from "node:net";
import type { ChunkLogQueue } from "./chunk-log-queue.js";
import { ConnectionFaults } from "./connection-faults.js";
import { type ConnectionLogs, connectionLogs, type LogSettings } from "./connection-logs.js";
import { DirectionPump } from "./direction-pump.js";
import type { DirectionWriter } from "./direction-writer.js";
import type { FaultTable } from "./fault-table.js";
import { IndentSlots } from "./indent-slots.js";
import type { LogWriter } from "./log-writer.js";
import { type MicroClock, PcapConnection } from "./pcap-connection.js";

/** What every connection of one relay shares. */
export interface RelayContext extends LogSettings {
  /** The server's host as given (a name is looked up per connection, trying every address). */
  host: string;
  port: number;
  slots: IndentSlots;
  /**
   * With `-pcap`: the capture file's writer, the microsecond clock of its packets, and whether
   * their TCP checksums are computed (not for a capture read live, see `openPcapFile`).
   */
  pcap: { writer: LogWriter; clock: MicroClock; tcpChecksums: boolean } | null;
  /** The chunks forwarded and not yet logged, shared by every connection (kept in read order). */
  logQueue: ChunkLogQueue;
  /** The faults on purpose (`-delay`, ..., `-control`); null when there are none and can be none. */
  faults: FaultTable | null;
  /**
   * Called once both sockets of the connection have closed, with the closing of its own log file
   * (`-connlogs`), which the relay waits for when it shuts down.
   */
  onClosed(connection: RelayConnection, logsClosed: Promise<void>): void;
}

/** After a `-limit` cut, how long the receiver may take to close its side. */
const LINGER_AFTER_CUT_MS = 2000;

/**
 * One accepted client, its own connection to the server, and the two directions between them.
 * An error or reset on either side destroys both; Finished lines are written as each side closes.
 */
export class RelayConnection {
  readonly #server: Socket;
  readonly #slot: number;
  readonly #acceptedAt: number;
  readonly #clientToServer: DirectionPump;
  readonly #serverToClient: DirectionPump;
  readonly #serverWriter: DirectionWriter | null;
  readonly #logs: ConnectionLogs | null;
  readonly #faults: ConnectionFaults | null;
  #connected = false;
  #cut = false;
  #openSockets = 2;
  readonly #client: Socket;
  readonly #context: RelayContext;

  constructor(
    readonly n: number,
    client: Socket,
    context: RelayContext,
  ) {
    this.#client = client;
    this.#context = context;
    this.#acceptedAt = context.clock();
    this.#slot = context.slots.acquire(n);
    this.#server = connect({ host: context.host, port: context.port, allowHalfOpen: true, noDelay: true });
    const indent = IndentSlots.indentFor(this.#slot);
    const logs = connectionLogs(context, n, indent);
    this.#logs = logs;
    const c = logs?.c ?? null;
    const s = logs?.s ?? null;
    this.#serverWriter = s?.writer ?? null;
    const capture = context.pcap === null ? [] : [context.pcap.writer];
    this.#clientToServer = new DirectionPump(
      client,
      this.#server,
      "C",
      c,
      capture,
      context.clock,
      this.#acceptedAt,
      context.logQueue,
    );
    this.#serverToClient = new DirectionPump(
      this.#server,
      client,
      "S",
      s,
      capture,
      context.clock,
      this.#acceptedAt,
      context.logQueue,
    );
    this.#faults = null;
    if (context.faults !== null) {
      const writers = logs === null ? null : { C: logs.c.writer, S: logs.s.writer };
      const view = logs?.http ?? null;
      const faults = new ConnectionFaults(n, context.faults, this.#acceptedAt, context.clock, writers, {
        reset: () => {
          this.#faults?.close();
          this.#client.resetAndDestroy();
          this.#server.resetAndDestroy();
        },
        close: () => this.destroy(),
        noted: view === null ? undefined : (f) => view.noteFault(f.name),
      });
      this.#faults = faults;
      const stages = faults.attach({ c2s: this.#clientToServer, s2c: this.#serverToClient });
      this.#clientToServer.attachFaults(
        stages.c2s,
        faults.counts.c2s,
        () => faults.reportDropped("c2s", stages.c2s),
        () => this.#cutAfterLimit(this.#client, this.#server),
      );
      this.#serverToClient.attachFaults(
        stages.s2c,
        faults.counts.s2c,
        () => faults.reportDropped("s2c", stages.s2c),
        () => this.#cutAfterLimit(this.#server, this.#client),
      );
    }
    client.setNoDelay(true);
    client.on("error", this.#onClientError);
    client.on("close", this.#onClientClose);
    this.#server.on("error", this.#onServerError);
    this.#server.on("close", this.#onServerClose);
    this.#server.once("connect", this.#onConnect);
  }

  readonly #onConnect = (): void => {
    this.#connected = true;
    const pcap = this.#context.pcap;
    if (pcap !== null) {
      // The conversation as if client and server spoke directly: their own addresses and ports.
      const tcp = new PcapConnection(
        pcap.writer,
        { address: this.#client.remoteAddress ?? "0.0.0.0", port: this.#client.remotePort ?? 0 },
        { address: this.#server.remoteAddress ?? "0.0.0.0", port: this.#server.remotePort ?? 0 },
        pcap.clock,
        pcap.tcpChecksums,
      );
      tcp.open();
      this.#clientToServer.capture = tcp;
      this.#serverToClient.capture = tcp;
    }
    this.#clientToServer.start();
    this.#serverToClient.start();
    // The client was accepted paused so that nothing is read before there is somewhere to send it.
    this.#client.resume();
  };

  readonly #onClientError = (): void => {
    this.destroy();
  };

  // Before the connection is made this is the server being unreachable: one line says why.
  readonly #onServerError = (error: Error): void => {
    if (!this.#connected && this.#serverWriter !== null) {
      (this.#context.json ?? this.#context.stamp)?.refresh();
      this.#serverWriter.connectError(describeConnectError(error));
    }
    this.destroy();
  };

  readonly #onClientClose = (): void => {
    if (this.#connected) this.#clientToServer.finish();
    // A client gone before the server answered leaves nobody to relay for.
    else this.#server.destroy();
    this.#closed();
  };

  readonly #onServerClose = (): void => {
    if (this.#connected) this.#serverToClient.finish();
    this.#closed();
  };

  // A socket closing without an error has finished both halves, and the other one then only has
  // its last writes to flush: it must not be destroyed here, or those bytes would be lost.
  #closed(): void {
    if (--this.#openSockets > 0) return;
    this.#faults?.close();
    this.#context.slots.release(this.n, this.#slot);
    this.#context.onClosed(this, this.#logs?.close() ?? Promise.resolve());
  }

  /**
   * `-limit` reached: the receiver gets everything up to the limit and a FIN, the sender is closed.
   * A receiver that does not close in turn is closed a little later.
   */
  #cutAfterLimit(sender: Socket, receiver: Socket): void {
    if (this.#cut) return;
    this.#cut = true;
    receiver.end();
    sender.destroy();
    setTimeout(() => this.destroy(), LINGER_AFTER_CUT_MS).unref();
  }

  /** Tears down both sides (shutdown, or an error on one of them). */
  destroy(): void {
    // Bytes a fault still holds are dropped (and counted) before the Finished lines.
    this.#faults?.close();
    this.#client.destroy();
    this.#server.destroy();
  }
}

/**
 * The reason a connection to the server failed, in one line. With a name that resolves to several
 * addresses, Node tries each and reports an AggregateError whose own message can be empty.
 */
export function describeConnectError(error: Error): string {
  if (error.message !== "") return error.message;
  const inner = (error as Error & { errors?: Error[] }).errors;
  if (inner !== undefined && inner.length > 0) return inner.map((e) => e.message).join("; ");
  return (error as NodeJS.ErrnoException).code ?? "connection failed";
}
