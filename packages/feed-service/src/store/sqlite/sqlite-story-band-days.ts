/**
 * The band keys that each day of `story_bands` holds, kept in memory per connection for the text
 * look-up of ingest (`findStory`, sqlite-story-writer.ts). A new post's 8 band keys are hashes
 * (text-fingerprint.ts), so nearly every look-up finds nothing, yet its statement seeks once per day
 * and band of its window (7 x 8, story_bands_by_day) and builds its two IN lists: with the days of
 * the window held here, a look-up whose bands no held day has needs no statement, and one that
 * does reads only the days not held or holding a band (the others add no row).
 *
 * Exact: a day is read whole from the index; afterwards its rows change only by this connection's
 * `registerStory` (whose keys are added here), by deletions (a held day is then a superset: a key
 * found here only sends the look-up to the statement, which answers exactly; a rolled-back insert
 * leaves the same), or by another connection's commit, which changes `data_version`
 * (https://sqlite.org/pragma.html#pragma_data_version) and drops every held day. The migrations
 * that move band rows run before any look-up of an opened store.
 *
 * Cost bound: a day is read only once its look-ups would have sought as many index rows as reading
 * it does: the look-ups that asked about it (8 seeks each) reach its posts (8 band rows each) in
 * post_day_counts, a rent-or-buy rule that never reads more than twice what seeking alone would. At
 * most two windows' days are held (one for the refreshes under way, one for the previous), the
 * least recently asked dropped first.
 */
import type Database from "better-sqlite3";
import { textWindowMs } from "../../dedupe/story-keys.js";
import type { StatementCache } from "./sqlite-connection.js";
import { bandDay } from "./sqlite-story-bands.js";

const dayMs = 86_400_000;

/** Days a look-up's window spans at most (bandDays of a date +- textWindowMs), twice. */
const heldDays = 2 * ((2 * textWindowMs) / dayMs + 1);

/**
 * A set of 32-bit integers in typed arrays (open addressing, linear probing; Knuth, TAOCP vol. 3,
 * 6.4): a post's look-up asks up to 7 days about 8 bands each, and a probe here costs less than
 * a binary search of a day's keys or a Set<number>, which keeps keys outside the small-integer
 * range as heap numbers.
 */
export class Int32Set {
  #slots: Int32Array;
  #used: Uint8Array;
  #size = 0;

  constructor(expected = 0) {
    let capacity = 16;
    while (capacity < expected * 2) capacity *= 2;
    this.#slots = new Int32Array(capacity);
    this.#used = new Uint8Array(capacity);
  }

  get size(): number {
    return this.#size;
  }

  #start(key: number): number {
    // The band keys are hashes already; the mix only spreads other keys' low bits.
    const h = Math.imul(key ^ (key >>> 16), 0x45d9f3b);
    return (h ^ (h >>> 16)) & (this.#slots.length - 1);
  }

  has(key: number): boolean {
    const mask = this.#slots.length - 1;
    for (let i = this.#start(key); this.#used[i] === 1; i = (i + 1) & mask) {
      if (this.#slots[i] === key) return true;
    }
    return false;
  }

  add(key: number): void {
    // At most half full, so that a probe ends soon at an empty slot.
    if ((this.#size + 1) * 2 > this.#slots.length) this.#grow();
    const mask = this.#slots.length - 1;
    let i = this.#start(key);
    for (; this.#used[i] === 1; i = (i + 1) & mask) if (this.#slots[i] === key) return;
    this.#used[i] = 1;
    this.#slots[i] = key;
    this.#size++;
  }

  #grow(): void {
    const [slots, used] = [this.#slots, this.#used];
    this.#slots = new Int32Array(slots.length * 2);
    this.#used = new Uint8Array(slots.length * 2);
    this.#size = 0;
    for (let i = 0; i < slots.length; i++) if (used[i] === 1) this.add(slots[i]!);
  }
}

interface Day {
  /**
   * The day's band keys once read, with the keys this connection wrote to the day since; null
   * while its look-ups still seek.
   */
  keys: Int32Set | null;
  /** How many band rows the day held when it was read. */
  read: number;
  /** Its posts when first asked about (post_day_counts): what reading it costs, in look-ups. */
  posts: number;
  asks: number;
  /** When it was last asked about (a count of asks), for dropping the least recent. */
  lastAsk: number;
}

interface Held {
  version: number;
  days: Map<number, Day>;
  asks: number;
  /** Held days with keys. */
  loaded: number;
}

const held = new WeakMap<Database.Database, Held>();

/**
 * Whether each connection's database has story_bands_by_day, by the schema version it was asked at
 * (the schema cookie changes with every schema change: migration 22 makes the index).
 */
const indexed = new WeakMap<Database.Database, { schema: number; indexed: boolean }>();

/** The connection's held days, dropped if another connection committed since; null without the day index. */
function heldFor(stmts: StatementCache): Held | null {
  const db = stmts.database;
  // Asked for every new post of a refresh: a refresh's transaction reads both once.
  const { version, schema } = stmts.fixedWhileWriting(
    "heldFor.versions",
    () =>
      stmts
        .get(`SELECT (SELECT data_version FROM pragma_data_version) AS version,
      (SELECT schema_version FROM pragma_schema_version) AS schema`)
        .get() as { version: number; schema: number },
  );
  let seen = indexed.get(db);
  if (seen?.schema !== schema) {
    const has = stmts
      .get("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'story_bands_by_day'")
      .get();
    seen = { schema, indexed: has !== undefined };
    indexed.set(db, seen);
  }
  // Schema 18's layout (before migration 22) has no index to read a day from.
  if (!seen.indexed) return null;
  let h = held.get(db);
  if (h === undefined || h.version !== version) {
    h = { version, days: new Map(), asks: 0, loaded: 0 };
    held.set(db, h);
  }
  return h;
}

function load(stmts: StatementCache, h: Held, dayNo: number, day: Day): void {
  if (h.loaded >= heldDays) {
    let oldest: Day | null = null;
    for (const d of h.days.values())
      if (d.keys !== null && d.read > 0 && (oldest === null || d.lastAsk < oldest.lastAsk)) oldest = d;
    if (oldest !== null) {
      oldest.keys = null;
      oldest.read = 0;
      oldest.asks = 0;
      h.loaded--;
    }
  }
  const bands = stmts
    .get(`SELECT band FROM story_bands INDEXED BY story_bands_by_day WHERE ${bandDay("post_date")} = ?`)
    .pluck()
    .all(dayNo) as number[];
  const keys = new Int32Set(bands.length);
  for (const b of bands) keys.add(b);
  day.keys = keys;
  day.read = bands.length;
  if (bands.length > 0) h.loaded++;
}

/** Whether a read day holds band key `band`. */
function holds(day: Day & { keys: Int32Set }, band: number): boolean {
  return day.keys.has(band);
}

/** A day's posts (post_day_counts keys days by floor, bandDay by truncation: the same from 1970). */
function postsOn(stmts: StatementCache, dayNo: number): number {
  return stmts
    .get("SELECT coalesce(sum(posts), 0) FROM post_day_counts WHERE day = ?")
    .pluck()
    .get(dayNo) as number;
}

/**
 * Of `days` (bandDays of a look-up's window, in order), those that may hold one of `bands`: the
 * days not held, and the held days that hold one, in the same order. An empty list: no post of the
 * window has any of them.
 */
export function daysWithBands(
  stmts: StatementCache,
  days: readonly number[],
  bands: readonly number[],
): number[] {
  const h = heldFor(stmts);
  if (h === null) return [...days];
  const out: number[] = [];
  for (const dayNo of days) {
    let day = h.days.get(dayNo);
    if (day === undefined) {
      day = { keys: null, read: 0, posts: postsOn(stmts, dayNo), asks: 0, lastAsk: 0 };
      h.days.set(dayNo, day);
    }
    day.lastAsk = ++h.asks;
    if (day.keys === null && ++day.asks >= day.posts) load(stmts, h, dayNo, day);
    const read = day.keys === null ? null : (day as Day & { keys: Int32Set });
    if (read === null || bands.some((b) => holds(read, b))) out.push(dayNo);
  }
  return out;
}

/** Keeps a held day in step with the band rows this connection writes (`registerStory`). */
export function noteBands(stmts: StatementCache, dayNo: number, bands: readonly number[]): void {
  const day = held.get(stmts.database)?.days.get(dayNo);
  if (day?.keys) {
    for (const b of bands) day.keys.add(b);
  }
}
