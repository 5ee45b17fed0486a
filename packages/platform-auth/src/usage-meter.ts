import { lstatSync, readFileSync } from "node:fs";
import { PlatformAuthError } from "./errors.js";
import { withFileLock } from "./file-lock.js";
import { writePrivateFile } from "./private-file.js";

/** Counts of one credential in one hour. */
export interface HourCounts {
  mints: number;
  calls: number;
}

/** One credential's record: who it is (no secret) and its counts per UTC hour (`2026-11-28T08`). */
export interface CredentialUsage {
  clientId: string;
  orgId: string;
  hours: Record<string, HourCounts>;
}

export type UsageFile = Record<string, CredentialUsage>;

// A week of hours is enough to see a pattern; older hours are dropped at each write.
const KEEP_HOURS = 24 * 7;
// Calls are counted in memory and written in batches: a write per call would cost more than the call.
const FLUSH_EVERY_CALLS = 100;

/** The UTC hour of an instant, as the usage file keys it: `2026-11-28T08`. */
export function hourOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 13);
}

/**
 * Counts tokens minted and calls sent per credential and per hour, in a file shared by every
 * process (beside the token cache, owner-only, merged under a lock), because the platform's
 * throttling counts what all the apps of one credential do together, not what one process did.
 * Mints are written at once; calls in batches and at {@link UsageMeter.flush}.
 *
 * @example
 * const meter = new UsageMeter("/home/me/.cache/platform-auth/usage.json", key, { clientId, orgId });
 * meter.count("calls");
 * await meter.flush();
 */
export class UsageMeter {
  readonly path: string;
  readonly #key: string;
  readonly #who: { clientId: string; orgId: string };
  readonly #now: () => number;
  // Pending counts per hour, not yet in the file.
  #pending = new Map<string, HourCounts>();
  #pendingCalls = 0;
  #writing: Promise<void> = Promise.resolve();

  readonly #onTotals: ((thisHour: HourCounts) => void) | undefined;

  constructor(
    path: string,
    key: string,
    who: { clientId: string; orgId: string },
    now: () => number = Date.now,
    /** Told this credential's totals of the current hour (all processes) after each write. */
    onTotals?: (thisHour: HourCounts) => void,
  ) {
    this.path = path;
    this.#onTotals = onTotals;
    this.#key = key;
    // Only these two: the caller may pass its whole settings object, secret included.
    this.#who = { clientId: who.clientId, orgId: who.orgId };
    this.#now = now;
  }

  count(what: "mints" | "calls"): void {
    const hour = hourOf(this.#now());
    const c = this.#pending.get(hour) ?? { mints: 0, calls: 0 };
    c[what]++;
    this.#pending.set(hour, c);
    if (what === "mints" || ++this.#pendingCalls >= FLUSH_EVERY_CALLS)
      void this.flush().catch(() => undefined);
  }

  /** Adds the pending counts to the file; resolves when they are written. */
  flush(): Promise<void> {
    if (this.#pending.size === 0) return this.#writing;
    const batch = this.#pending;
    this.#pending = new Map();
    this.#pendingCalls = 0;
    this.#writing = this.#writing.then(() =>
      withFileLock(this.path, async () => {
        const file = readUsageFile(this.path);
        const mine = file[this.#key] ?? { ...this.#who, hours: {} };
        for (const [hour, c] of batch) {
          const h = mine.hours[hour] ?? { mints: 0, calls: 0 };
          mine.hours[hour] = { mints: h.mints + c.mints, calls: h.calls + c.calls };
        }
        file[this.#key] = mine;
        const oldest = hourOf(this.#now() - KEEP_HOURS * 3_600_000);
        for (const usage of Object.values(file)) {
          for (const hour of Object.keys(usage.hours)) if (hour < oldest) delete usage.hours[hour];
        }
        writeUsageFile(this.path, file);
        const current = mine.hours[hourOf(this.#now())];
        if (current) this.#onTotals?.({ ...current });
      }),
    );
    return this.#writing;
  }
}

/** Reads the usage file; empty when it does not exist. A file that others can read is refused. */
export function readUsageFile(path: string): UsageFile {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw usageError(path, "could not be read", err);
  }
  if (!stat.isFile() || (process.getuid && stat.uid !== process.getuid())) {
    throw usageError(path, "is not a file of this user");
  }
  try {
    const data = JSON.parse(readFileSync(path, "utf8"));
    return typeof data === "object" && data !== null && !Array.isArray(data) ? (data as UsageFile) : {};
  } catch {
    // Damaged counts are not worth failing a call for; they start again.
    return {};
  }
}

function writeUsageFile(path: string, file: UsageFile): void {
  try {
    writePrivateFile(path, JSON.stringify(file));
  } catch (err) {
    throw usageError(path, "could not be written", err);
  }
}

function usageError(path: string, what: string, cause?: unknown): PlatformAuthError {
  return new PlatformAuthError("PA_CACHE", `usage file ${path} ${what}`, { cause });
}
