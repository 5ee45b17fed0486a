/** A clock in milliseconds since the epoch; injectable so that `-t` logs can be tested exactly. */
export type Clock = () => number;

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/**
 * Formats `ms` as the local time `YYYY-MM-DD HH:MM:SS`, the classic tool's `-t` format, or with
 * `millis` as `YYYY-MM-DD HH:MM:SS.mmm` (`-tms`).
 */
export function formatLocalTime(ms: number, millis = false): string {
  const d = new Date(ms);
  const seconds = `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(
    d.getMinutes(),
  )}:${two(d.getSeconds())}`;
  return millis ? `${seconds}.${String(d.getMilliseconds()).padStart(3, "0")}` : seconds;
}

/**
 * The current `[YYYY-MM-DD HH:MM:SS] ` prefix as bytes (with `millis`, `[... HH:MM:SS.mmm] `),
 * rebuilt only when the second (or millisecond) changes: one shared instance serves every
 * connection, and `refresh()` is called once per received chunk rather than once per entry.
 *
 * @example
 * const stamp = new TimestampPrefix(() => Date.now());
 * stamp.refresh();
 * stamp.bytes.toString(); // "[2026-01-02 03:04:05] "
 */
export class TimestampPrefix {
  bytes: Buffer = Buffer.alloc(0);
  #unit = Number.NaN;
  readonly #unitMs: number;
  constructor(
    readonly now: Clock,
    readonly millis = false,
  ) {
    this.#unitMs = millis ? 1 : 1000;
  }

  refresh(): void {
    const unit = Math.floor(this.now() / this.#unitMs);
    if (unit === this.#unit) return;
    this.#unit = unit;
    this.bytes = Buffer.from(`[${formatLocalTime(unit * this.#unitMs, this.millis)}] `, "latin1");
  }
}

/**
 * The JSON log's `time`: ISO 8601 UTC with milliseconds (`2024-01-02T03:04:05.067Z`) as bytes,
 * rebuilt only when the millisecond changes, shared by every connection like `TimestampPrefix`.
 *
 * @example
 * const time = new IsoTimestamp(() => 0);
 * time.refresh();
 * time.bytes.toString(); // "1970-01-01T00:00:00.000Z"
 */
export class IsoTimestamp {
  bytes: Buffer = Buffer.alloc(0);
  #ms = Number.NaN;
  constructor(readonly now: Clock) {}

  refresh(): void {
    const ms = this.now();
    if (ms === this.#ms) return;
    this.#ms = ms;
    this.bytes = Buffer.from(new Date(ms).toISOString(), "latin1");
  }

  /** The current time as a string, for the rare lines built as strings. */
  text(): string {
    this.refresh();
    return this.bytes.toString("latin1");
  }
}
