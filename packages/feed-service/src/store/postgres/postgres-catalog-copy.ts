/**
 * The catalogue lists (categories with their feed counts, smart categories, languages, the feeds
 * per filter) kept in the service process, as the SQLite pool keeps them on its request thread: a
 * cheap call then answers in the turn of the event loop that read the request, with no statement
 * sent and no server process to wake while heavy reads hold the cores (spec §4, isolation).
 *
 * Exact under writes from any process: migration 57's statement triggers NOTIFY on every write
 * that can change a list (postgres_catalog_changes), and PostgreSQL delivers a notification only
 * after its transaction commits, never for one rolled back
 * (https://www.postgresql.org/docs/current/sql-notify.html). A connection of its own LISTENs;
 * each notification drops the lists it names. While that connection is down nothing is kept and
 * every call reads the database; it reconnects, and only reads begun after its LISTEN are kept.
 * The store's own write connections LISTEN too: the server sends a connection its notifications
 * before the ReadyForQuery that ends its COMMIT, so this process's own writes have dropped the
 * lists before the write's promise resolves. Another process's commit is seen once its
 * notification reaches this process (the listening server process is signalled at that commit).
 */
import pg from "pg";

/** The channel of migration 57's triggers. */
export const CATALOG_CHANNEL = "feed_catalog";

/**
 * What a write changed, as its trigger names it: `feed_rows` (a feed's own columns) changes only
 * the feed lists; the others may change every list that shows them (a feed added, removed or
 * moved changes its category's count; a category renamed changes the feed rows' category name).
 */
type Change = "categories" | "smart_categories" | "languages" | "feeds" | "feed_rows";

/**
 * Migration 57. Statement triggers, so a refresh or a COPY notifies once per statement; the
 * server folds equal notifications of one transaction into one. The payload names the schema, so
 * stores of other schemas in the same database can tell theirs apart. Updates of a feed's fetch
 * state (claims, errors, next fetch) list none of the columns the lists show and notify nothing.
 */
export const catalogChangesSchema = `
CREATE OR REPLACE FUNCTION notify_catalog_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('${CATALOG_CHANNEL}', TG_TABLE_SCHEMA || ' ' || TG_ARGV[0]);
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER catalog_change_categories AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON categories
  FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_change('categories');
CREATE OR REPLACE TRIGGER catalog_change_smart_categories AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON smart_categories
  FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_change('smart_categories');
CREATE OR REPLACE TRIGGER catalog_change_languages AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON languages
  FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_change('languages');
CREATE OR REPLACE TRIGGER catalog_change_feeds AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF category_id ON feeds
  FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_change('feeds');
CREATE OR REPLACE TRIGGER catalog_change_feed_rows
  AFTER UPDATE OF name, name_key, url, site_url, description, language_id, post_count, last_post_date ON feeds
  FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_change('feed_rows');
`;

/** How many filtered feed lists are kept at most (one per category or language asked for). */
const maxKeptFeedLists = 256;
/** The first wait before connecting the listener again, doubled up to the last. */
const reconnectMs = { first: 250, last: 30_000 };

export interface CatalogCopyOptions {
  /** The primary's URL (notifications are not sent to a replica's connections). */
  url: string;
  schema?: string;
}

export class CatalogCopy {
  readonly #options: CatalogCopyOptions;
  /** The kept lists by key: `categories`, `smart_categories`, `languages`, `feeds/<c>/<l>`. */
  readonly #kept = new Map<string, Promise<readonly unknown[]>>();
  #client: pg.Client | null = null;
  #listening = false;
  #schema: string | null = null;
  #closed = false;
  #timer: NodeJS.Timeout | null = null;
  #wait = reconnectMs.first;

  constructor(options: CatalogCopyOptions) {
    this.#options = options;
  }

  /** True while the listener's LISTEN holds: only then are lists kept. */
  get listening(): boolean {
    return this.#listening;
  }

  /** The listener's server process id (tests end it to stand for a lost connection). */
  get listenerPid(): number | null {
    return this.#listening ? ((this.#client as unknown as { processID?: number })?.processID ?? null) : null;
  }

  /** Connects the listener; resolves once it listens (or failed: it retries in the background). */
  async start(): Promise<void> {
    await this.#connect();
  }

  /** Run on each of the store's write connections: their own commits drop the lists at once. */
  readonly onWriteConnection = async (client: pg.ClientBase): Promise<void> => {
    client.on("notification", (message) => this.#notified(message));
    await client.query(`LISTEN ${CATALOG_CHANNEL}`);
  };

  /**
   * The list under `key`, read by `read` when not kept. Each caller gets its own array of the kept
   * records. A read begun while not listening is not kept; a read still running when its list is
   * dropped answers its caller and is not kept either.
   */
  get<T>(key: string, read: () => Promise<readonly T[]>): Promise<T[]> {
    let rows = this.#kept.get(key) as Promise<readonly T[]> | undefined;
    if (rows === undefined) {
      rows = read();
      // One feed list per filter asked for; past the bound, filters that name nothing cannot
      // grow the map: their lists are read each time.
      if (this.#listening && (!key.startsWith("feeds/") || this.#feedLists() < maxKeptFeedLists)) {
        this.#kept.set(key, rows);
        const kept = rows;
        // A read that failed must not be kept.
        kept.catch(() => {
          if (this.#kept.get(key) === kept) this.#kept.delete(key);
        });
      }
    }
    return rows.then((list) => [...list]);
  }

  #feedLists(): number {
    let n = 0;
    for (const key of this.#kept.keys()) if (key.startsWith("feeds/")) n++;
    return n;
  }

  #notified(message: pg.Notification): void {
    if (message.channel !== CATALOG_CHANNEL) return;
    const [schema, change] = (message.payload ?? "").split(" ") as [string, Change | undefined];
    // Another schema's store: not ours (a notification we cannot read drops everything).
    if (this.#schema !== null && change !== undefined && schema !== this.#schema) return;
    this.#drop(
      change === "feed_rows" || change === "smart_categories" || change === "languages" ? change : null,
    );
  }

  /** Drops the lists a change may touch (`null`: all). */
  #drop(change: "feed_rows" | "smart_categories" | "languages" | null): void {
    if (change === null) {
      this.#kept.clear();
      return;
    }
    for (const key of [...this.#kept.keys()]) {
      if (change === "feed_rows" ? key.startsWith("feeds/") : key === change) this.#kept.delete(key);
    }
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({
      connectionString: this.#options.url,
      connectionTimeoutMillis: 10_000,
      ...(this.#options.schema ? { options: `-c search_path=${this.#options.schema}` } : {}),
    });
    const lost = () => {
      if (this.#client !== client) return;
      this.#client = null;
      // Notifications may have been missed from here on: nothing kept is known to hold.
      this.#listening = false;
      this.#kept.clear();
      client.end().catch(() => {});
      this.#retry();
    };
    client.on("error", lost);
    client.on("end", lost);
    client.on("notification", (message) => this.#notified(message));
    this.#client = client;
    try {
      await client.connect();
      const [row] = (await client.query("SELECT current_schema() AS schema")).rows as Array<{
        schema: string | null;
      }>;
      await client.query(`LISTEN ${CATALOG_CHANNEL}`);
      if (this.#client !== client || this.#closed) return;
      this.#schema = row?.schema ?? null;
      this.#kept.clear();
      this.#listening = true;
      this.#wait = reconnectMs.first;
    } catch {
      lost();
    }
  }

  #retry(): void {
    if (this.#closed || this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#connect().catch(() => {});
    }, this.#wait);
    this.#timer.unref();
    this.#wait = Math.min(this.#wait * 2, reconnectMs.last);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    this.#kept.clear();
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => {});
  }
}
