/** A clock in milliseconds since the epoch; injectable so that `-t` logs can be tested exactly. */
export type Clock = () => number;

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** Formats `ms` as the local time `YYYY-MM-DD HH:MM:SS`, the classic tool's `-t` format. */
export function formatLocalTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(
    d.getMinutes(),
  )}:${two(d.getSeconds())}`;
}

/**
 * The current `[YYYY-MM-DD HH:MM:SS] ` prefix as bytes, rebuilt only when the second changes:
 * one shared instance serves every connection, and `refresh()` is called once per received chunk
 * rather than once per entry.
 *
 * @example
 * const stamp = new TimestampPrefix(() => Date.now());
 * stamp.refresh();
 * stamp.bytes.toString(); // "[2026-01-02 03:04:05] "
 */
export class TimestampPrefix {
  bytes: Buffer = Buffer.alloc(0);
  private second = Number.NaN;
  constructor(readonly now: Clock) {}

  refresh(): void {
    const second = Math.floor(this.now() / 1000);
    if (second === this.second) return;
    this.second = second;
    this.bytes = Buffer.from(`[${formatLocalTime(second * 1000)}] `, "latin1");
  }
}
