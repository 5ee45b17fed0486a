/**
 * The PostgreSQL side of `migrate-data`: reads the store tables of one database, or loads them
 * into an empty one in one transaction, with its indexes, constraints and roll-up triggers set
 * aside until the rows are in (postgres-bulk-load.ts). The big tables, posts, clicks and the story
 * keys and bands (six a post), go in by COPY (postgres-copy-in.ts), posts encoded with their search vectors by worker threads while
 * the next batches are read (postgres-copy-encoders.ts); the small ones by one INSERT a batch.
 * The posts go into a staged table beside the transaction, committed, its indexes built on two
 * more connections while the other tables load, and swapped in before the commit
 * (postgres-posts-staging.ts).
 */
import { availableParallelism } from "node:os";
import type pg from "pg";
import {
  type CopiedTable,
  type CopyEndpoint,
  keyAfter,
  onConflict,
  type Row,
  type StepReport,
} from "../copied-tables.js";
import { leavingOutBuilt, putBack, type SetAside, setAsideForLoad } from "./postgres-bulk-load.js";
import {
  inTransaction,
  openPostgresPool,
  rows,
  type Sql,
  translatePostgresError,
} from "./postgres-connection.js";
import { PostEncoders } from "./postgres-copy-encoders.js";
import { CopyIn } from "./postgres-copy-in.js";
import { copyLines } from "./postgres-copy-rows.js";
import { migratePostgres } from "./postgres-migrations.js";
import {
  afterStagedCopy,
  buildStaged,
  dropPostsStaging,
  dropReferencesToPosts,
  type PostsStaging,
  preparePostsStaging,
  STAGED_TABLE,
  swapInPosts,
} from "./postgres-posts-staging.js";
import { ANALYZE_RUNNING_SUMS } from "./postgres-running-sums.js";

/**
 * Tables loaded by COPY: empty when the load begins (a forced copy truncates them in the load's
 * transaction first), so no row meets an existing key and COPY needs no conflict handling.
 */
const COPIED_BY_COPY = new Set(["posts", "clicks", "story_keys", "story_bands"]);
/** Encoded batches waiting to be sent: enough to keep every encoder busy, few enough to bound memory. */
const QUEUED_PER_ENCODER = 2;
const utf8 = new TextEncoder();
/** Tables whose ids come from a sequence that continues after the copied ids. */
const sequenceTables = [
  "languages",
  "categories",
  "feeds",
  "posts",
  "smart_categories",
  "searches",
  "clicks",
  "story_copies",
  "admin_users",
  "audit_log",
  "suggestions",
  "sign_in_failures",
];

/** A COPY under way: its table and the encoded batches not yet sent, in order. */
interface OpenCopy {
  readonly table: string;
  readonly copy: CopyIn;
  readonly queued: Array<Promise<Uint8Array>>;
  /** The connection whose own transaction the COPY commits when it ends (the staged posts). */
  readonly commits?: pg.PoolClient;
}

/**
 * The posts loaded beside the copy's transaction (postgres-posts-staging.ts): the connection that
 * loads them, and the index builds started when their COPY ended.
 */
interface Staged {
  readonly plan: PostsStaging;
  readonly client: pg.PoolClient;
  builder: pg.PoolClient | undefined;
  builds: Promise<void> | undefined;
  /** The foreign keys on `posts` dropped for the load, added back by the swap. */
  references: readonly string[];
  /** The builds' steps, reported by finish(). */
  readonly steps: Array<[string, number]>;
}

/** The copy's one transaction: its connection, what it set aside, column types, the INSERT under way. */
interface Load {
  readonly client: pg.PoolClient;
  readonly setAside: SetAside;
  /** udt_name by `table.column`, for the arrays' casts. */
  readonly types: ReadonlyMap<string, string>;
  inFlight: Promise<unknown>;
  open: OpenCopy | undefined;
  encoders: PostEncoders | undefined;
  /** Milliseconds spent waiting for the server to take COPY data (its socket buffer full). */
  sendWaitMs: number;
  staged: Staged | undefined;
}

export class PostgresEndpoint implements CopyEndpoint {
  readonly description = "PostgreSQL database";
  readonly #pool: pg.Pool;
  readonly #postsInPlace: boolean;
  #load: Load | undefined;

  private constructor(pool: pg.Pool, postsInPlace: boolean) {
    this.#pool = pool;
    this.#postsInPlace = postsInPlace;
  }

  /**
   * Connects to (and migrates) the database at `url`. `postsInPlace` loads `posts` itself instead
   * of the staged table (migrate-data's `postsInPlace`: benches and tests comparing the two).
   */
  static async open(url: string, options: { postsInPlace?: boolean } = {}): Promise<PostgresEndpoint> {
    // The copy's transaction, the staged posts' load and a second index builder.
    const pool = await openPostgresPool({ url, max: 3 });
    try {
      await migratePostgres(pool);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresEndpoint(pool, options.postsInPlace ?? false);
  }

  async count(table: CopiedTable): Promise<number> {
    const where = table.name === "languages" ? "WHERE id > 2" : "";
    const [row] = await rows<{ n: number }>(this.#pool, `SELECT count(*) AS n FROM ${table.name} ${where}`);
    return row!.n;
  }

  async read(table: CopiedTable, after: unknown, limit: number): Promise<Row[]> {
    const { where, values } = keyAfter(table, after, (i) => `$${i + 2}`);
    const result = await this.#pool.query({
      text: `SELECT ${table.columns.join(", ")} FROM ${table.name} ${where} ORDER BY ${table.key} LIMIT $1`,
      values: [limit, ...values],
      rowMode: "array",
    });
    return result.rows as Row[];
  }

  async begin(): Promise<void> {
    let client: pg.PoolClient;
    let staged: Staged | undefined;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw translatePostgresError(error);
    }
    try {
      // Before the transaction below locks `posts`: the staged table is made LIKE it.
      const stagingClient = await this.#pool.connect();
      try {
        const plan = this.#postsInPlace ? null : await preparePostsStaging(stagingClient);
        if (plan)
          staged = {
            plan,
            client: stagingClient,
            builder: undefined,
            builds: undefined,
            references: [],
            steps: [],
          };
        else stagingClient.release();
      } catch (error) {
        stagingClient.release();
        throw error;
      }
      await client.query("BEGIN");
      const types = await rows<{ tbl: string; col: string; udt: string }>(
        client,
        `SELECT table_name AS tbl, column_name AS col, udt_name AS udt FROM information_schema.columns
          WHERE table_schema = current_schema()`,
      );
      this.#load = {
        client,
        setAside: await setAsideForLoad(client),
        types: new Map(types.map((t) => [`${t.tbl}.${t.col}`, t.udt])),
        inFlight: Promise.resolve(),
        open: undefined,
        encoders: undefined,
        sendWaitMs: 0,
        staged,
      };
      if (staged) staged.references = await dropReferencesToPosts(client);
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      client.release();
      if (staged) {
        await dropPostsStaging(staged.client).catch(() => {});
        staged.client.release();
      }
      throw translatePostgresError(error);
    }
  }

  #loading(): Load {
    if (!this.#load) throw new Error("The copy into PostgreSQL writes between begin() and finish().");
    return this.#load;
  }

  /**
   * Posts and clicks: the batch joins the table's one COPY (posts encoded by the worker threads,
   * sent in order as the server takes them). Other tables: one INSERT of the whole batch as one
   * array per column (unnest), sent without waiting for it. Languages 1 and 2 exist in every
   * database: the copy's spelling replaces them.
   */
  async write(
    table: CopiedTable,
    batch: readonly Row[],
    feedNames: ReadonlyMap<number, string>,
  ): Promise<void> {
    const load = this.#loading();
    if (COPIED_BY_COPY.has(table.name)) return this.#copyBatch(load, table, batch, feedNames);
    await this.#endCopy(load);
    const columns = [...table.columns];
    const arrays: unknown[][] = columns.map(() => []);
    for (const row of batch) {
      for (let i = 0; i < row.length; i++) arrays[i]!.push(row[i]);
    }
    const unnest = columns.map((c, i) => `$${i + 1}::${load.types.get(`${table.name}.${c}`) ?? "text"}[]`);
    const text = `INSERT INTO ${table.name} (${columns.join(", ")}) SELECT * FROM unnest(${unnest.join(", ")})
      ${onConflict(table, columns)}`;
    await this.#settle(load);
    const sent = load.client.query(text, arrays);
    // Awaited by the next write or finish(); this handler only keeps the rejection from being unhandled.
    sent.catch(() => {});
    load.inFlight = sent;
  }

  async #copyBatch(
    load: Load,
    table: CopiedTable,
    batch: readonly Row[],
    feedNames: ReadonlyMap<number, string>,
  ): Promise<void> {
    if (load.open?.table !== table.name) {
      await this.#endCopy(load);
      await this.#settle(load);
      const staged = table.name === "posts" ? load.staged : undefined;
      const vectors = staged?.plan.rankedByCopy
        ? ["search_vector", "phrase_vector", "rank_vector", "body_length"]
        : ["search_vector", "phrase_vector"];
      const columns = table.name === "posts" ? [...table.columns, ...vectors] : table.columns;
      try {
        if (staged) {
          // FREEZE: the rows written frozen, as the table was emptied in this transaction (manual,
          // COPY), so no later scan (index builds, ANALYZE, VACUUM) rewrites their pages for hint bits.
          await staged.client.query("BEGIN");
          await staged.client.query(`TRUNCATE ${STAGED_TABLE}`);
        }
        const into = staged
          ? `${STAGED_TABLE} (${columns.join(", ")}) FROM STDIN FREEZE`
          : `${table.name} (${columns.join(", ")}) FROM STDIN`;
        load.open = {
          table: table.name,
          copy: await CopyIn.start(staged?.client ?? load.client, `COPY ${into}`),
          queued: [],
          commits: staged?.client,
        };
      } catch (error) {
        throw translatePostgresError(error);
      }
    }
    const open = load.open;
    let encoded: Promise<Uint8Array>;
    if (table.name === "posts") {
      // Analysing the posts' text costs the Node side more than reading and sending them: two
      // threads (one on a single core), while the server takes the rows on a core of its own.
      load.encoders ??= new PostEncoders(
        Math.min(2, availableParallelism()),
        load.staged?.plan.rankedByCopy ?? false,
      );
      encoded = load.encoders.encode(batch, feedNames);
    } else {
      encoded = Promise.resolve(utf8.encode(copyLines(batch)));
    }
    encoded.catch(() => {});
    open.queued.push(encoded);
    const limit = QUEUED_PER_ENCODER * Math.max(1, load.encoders?.size ?? 1);
    while (open.queued.length > limit) await this.#send(load, open);
  }

  /** Sends the oldest encoded batch of the open COPY. */
  async #send(load: Load, open: OpenCopy): Promise<void> {
    const bytes = await open.queued.shift()!;
    const started = performance.now();
    try {
      await open.copy.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    } catch (error) {
      throw translatePostgresError(error);
    }
    load.sendWaitMs += performance.now() - started;
  }

  /** Sends what the open COPY still has queued and ends it. */
  async #endCopy(load: Load): Promise<void> {
    const open = load.open;
    if (!open) return;
    while (open.queued.length > 0) await this.#send(load, open);
    load.open = undefined;
    try {
      await open.copy.end();
      if (open.commits) {
        await afterStagedCopy(open.commits, load.staged!.plan, load.encoders?.unranked ?? []);
        await open.commits.query("COMMIT");
        await this.#startBuilds(load.staged!);
      }
    } catch (error) {
      throw translatePostgresError(error);
    }
  }

  /** The staged posts' indexes, built while the copy goes on with the other tables. */
  async #startBuilds(staged: Staged): Promise<void> {
    staged.builder = await this.#pool.connect();
    staged.builds = buildStaged([staged.client, staged.builder], staged.plan, (step, ms) =>
      staged.steps.push([step, ms]),
    );
    // Awaited by finish() or close(); this handler only keeps the rejection from being unhandled.
    staged.builds.catch(() => {});
  }

  async #settle(load: Load): Promise<void> {
    try {
      await load.inFlight;
    } catch (error) {
      throw translatePostgresError(error);
    }
  }

  /**
   * Inside the copy's transaction once begin() opened it (a copy that fails then keeps the data),
   * else in a transaction of its own.
   */
  async clear(): Promise<void> {
    const empty = async (sql: Sql) => {
      await sql.query(
        "TRUNCATE feed_pauses, sign_in_failures, suggestions, audit_log, admin_sessions, admin_users, websub_subscriptions, clicks, clicked_posts, story_copies, story_bands, story_keys, searches, smart_categories, posts, feeds, categories, settings RESTART IDENTITY",
      );
      await sql.query("DELETE FROM languages WHERE id > 2");
    };
    if (!this.#load) return inTransaction(this.#pool, empty);
    try {
      await empty(this.#load.client);
    } catch (error) {
      throw translatePostgresError(error);
    }
  }

  async finish(report: StepReport = () => {}): Promise<void> {
    const load = this.#loading();
    await this.#endCopy(load);
    await this.#settle(load);
    if (load.encoders) {
      report(
        `posts encoded with their search vectors (${load.encoders.size} threads, summed)`,
        load.encoders.busyMs,
      );
      await load.encoders.close();
      load.encoders = undefined;
    }
    report("waiting for the server to take COPY data", load.sendWaitMs);
    const sql = load.client;
    const staged = load.staged;
    if (staged) {
      const waiting = performance.now();
      try {
        // A source without posts: the (empty) staged table is swapped in all the same.
        if (!staged.builds) await this.#startBuilds(staged);
        await staged.builds;
      } catch (error) {
        throw translatePostgresError(error);
      }
      for (const [step, ms] of staged.steps) report(step, ms);
      report("waiting for the posts' index builds", performance.now() - waiting);
    }
    const timed = async (step: string, statement: string) => {
      const started = performance.now();
      await sql.query(statement);
      report(step, performance.now() - started);
    };
    try {
      if (staged) {
        const swapping = performance.now();
        await swapInPosts(sql, staged.plan, staged.references);
        report("posts swapped in", performance.now() - swapping);
      }
      await putBack(sql, staged ? leavingOutBuilt(load.setAside, "posts") : load.setAside, timed);
      const sequences = performance.now();
      for (const name of sequenceTables) {
        await sql.query(
          `SELECT setval(pg_get_serial_sequence('${name}', 'id'), coalesce(max(id), 1), max(id) IS NOT NULL) FROM ${name}`,
        );
      }
      report("sequences set after the copied ids", performance.now() - sequences);
      // The planner's statistics describe the loaded tables before anyone reads them.
      // The staged posts were analysed beside the load (statistics stay with the renamed table).
      const analyzed = [...sequenceTables, "scope_days", ANALYZE_RUNNING_SUMS].filter(
        (t) => !staged || t !== "posts",
      );
      await timed("ANALYZE", `ANALYZE ${analyzed.join(", ")}`);
      await timed("COMMIT", "COMMIT");
    } catch (error) {
      throw translatePostgresError(error);
    }
    this.#load = undefined;
    load.client.release();
    staged?.client.release();
    staged?.builder?.release();
  }

  /** Ends the pool; a copy that did not finish is rolled back, leaving the database as it was. */
  async close(): Promise<void> {
    const load = this.#load;
    this.#load = undefined;
    if (load) {
      // A COPY still open would take the ROLLBACK for data: it is failed first.
      await load.open?.copy.abort();
      for (const queued of load.open?.queued ?? []) await queued.catch(() => {});
      await load.encoders?.close();
      await load.inFlight.catch(() => {});
      await load.client.query("ROLLBACK").catch(() => {});
      const staged = load.staged;
      if (staged) {
        // Builds still running are cancelled, not waited for: the staged table is dropped. From
        // the copy's own connection, rolled back first (the pool has no fourth one).
        for (const client of [staged.client, staged.builder]) {
          const pid = (client as unknown as { processID?: number } | undefined)?.processID;
          if (pid) await load.client.query("SELECT pg_cancel_backend($1)", [pid]).catch(() => {});
        }
        await staged.builds?.catch(() => {});
        await staged.client.query("ROLLBACK").catch(() => {});
        await dropPostsStaging(staged.client).catch(() => {});
        staged.client.release();
        staged.builder?.release();
      }
      load.client.release();
    }
    await this.#pool.end();
  }
}
