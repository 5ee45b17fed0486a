/**
 * `COPY ... FROM STDIN` over a pg client, for the bulk load of `migrate-data`: PostgreSQL's fastest
 * way in ("Populating a Database", PostgreSQL manual §14.4), one statement for a whole table instead
 * of a statement per batch. The protocol (manual §53.2.6, "COPY Operations"): the statement, a
 * CopyInResponse, any number of CopyData messages, CopyDone; the server answers CommandComplete
 * and ReadyForQuery, or an ErrorResponse at the first bad row. Data is sent as the socket takes
 * it: `write` waits while the socket's buffer is full, so a fast producer cannot queue a table in
 * memory.
 */
import type pg from "pg";

/** The copy messages pg's connection can send (not in its type declarations). */
type CopyConnection = pg.Connection & {
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
};

/** One COPY FROM STDIN under way on a client: `write` its data, then `end` it. */
export class CopyIn {
  readonly #submittable: CopySubmittable;

  private constructor(submittable: CopySubmittable) {
    this.#submittable = submittable;
  }

  /**
   * Sends `statement` (a `COPY ... FROM STDIN`) and waits until the server accepts data.
   *
   * @example
   * const copy = await CopyIn.start(client, "COPY clicks (id, post_id) FROM STDIN");
   * await copy.write(Buffer.from("1\t7\n"));
   * await copy.end(); // 1
   */
  static async start(client: pg.ClientBase, statement: string): Promise<CopyIn> {
    const submittable = new CopySubmittable(statement);
    client.query(submittable);
    await submittable.accepting;
    return new CopyIn(submittable);
  }

  /** Sends rows (whole lines of the COPY format); waits while the socket's buffer is full. */
  async write(data: Buffer): Promise<void> {
    const s = this.#submittable;
    if (s.failure) throw s.failure;
    const connection = s.connection!;
    connection.sendCopyFromChunk(data);
    if (connection.stream.writableNeedDrain) {
      // Settles on the drain, or when the server fails the copy and stops reading.
      await Promise.race([new Promise((resolve) => connection.stream.once("drain", resolve)), s.settled]);
    }
    if (s.failure) throw s.failure;
  }

  /** Fails the copy (the server rolls its rows back) unless it already ended; never throws. */
  async abort(): Promise<void> {
    const s = this.#submittable;
    if (!s.failure && !s.ending) s.connection!.sendCopyFail("migrate-data stopped");
    await s.settled;
  }

  /** Ends the data; resolves with the rows the server stored, or rejects with its error. */
  async end(): Promise<number> {
    const s = this.#submittable;
    if (!s.failure) {
      s.ending = true;
      s.connection!.endCopyFrom();
    }
    await s.settled;
    if (s.failure) throw s.failure;
    return s.rows;
  }
}

/** The query object pg's client drives (its `handle*` calls follow the server's messages). */
class CopySubmittable implements pg.Submittable {
  readonly text: string;
  connection: CopyConnection | undefined;
  failure: Error | undefined;
  /** CopyDone was sent. */
  ending = false;
  rows = 0;
  readonly accepting: Promise<void>;
  /** Resolves once the server is ready for the next statement (never rejects; see `failure`). */
  readonly settled: Promise<void>;
  #accept!: (value?: undefined) => void;
  #refuse!: (error: Error) => void;
  #settle!: () => void;

  constructor(text: string) {
    this.text = text;
    this.accepting = new Promise<void>((resolve, reject) => {
      this.#accept = resolve;
      this.#refuse = reject;
    });
    this.accepting.catch(() => {});
    this.settled = new Promise<void>((resolve) => {
      this.#settle = resolve;
    });
  }

  submit(connection: pg.Connection): void {
    this.connection = connection as CopyConnection;
    this.connection.query(this.text);
  }

  handleCopyInResponse(): void {
    this.#accept();
  }

  handleCommandComplete(message: { text?: string }): void {
    this.rows = Number(/^COPY (\d+)/.exec(message.text ?? "")?.[1] ?? 0);
  }

  handleReadyForQuery(): void {
    if (!this.failure) this.#accept();
    this.#settle();
  }

  /** An error ends the query for pg's client: nothing more comes for it. */
  handleError(error: Error): void {
    this.failure = error;
    this.#refuse(error);
    this.#settle();
  }

  // Messages a COPY FROM never gets; present because pg's client may call them on any query.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}
