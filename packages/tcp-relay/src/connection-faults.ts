import type { DirectionWriter } from "./direction-writer.js";
import type { Fault } from "./fault-spec.js";
import { type FaultOutlet, FaultStage } from "./fault-stage.js";
import { type FaultTable, hitsConnection } from "./fault-table.js";

/** What the faults of a connection do to it beyond its bytes. */
export interface ConnectionFaultActions {
  /** `-reset`: RST to both sides. */
  reset(): void;
  /** A blackhole's `closeAfterMs` has passed: the connection is closed. */
  close(): void;
  /** Told of every fault that acts (the `-http` view marks the exchanges it hit). */
  noted?(fault: Fault): void;
}

type Side = "c2s" | "s2c";

/** Counts per fault kind, as the Finished line's JSON reports them. */
export type FaultCounts = Record<string, number>;

/**
 * The faults of one connection: which of the table's faults hit it (`@N`, and toxicity rolled
 * once per fault), the two directions' stages, the timers of `-reset` and `-blackhole`, and the
 * records: a fault line the first time each fault acts, a count each time. Follows the table while
 * the connection lives, so faults added or removed through the control API act at once.
 *
 * @example
 * const faults = new ConnectionFaults(0, table, Date.now(), Date.now, writers, { reset: () => conn.resetBoth() });
 * faults.attach({ c2s: clientToServer, s2c: serverToClient });
 */
export class ConnectionFaults {
  readonly stages: Record<Side, FaultStage> | null = null;
  readonly counts: Record<Side, FaultCounts> = { c2s: {}, s2c: {} };
  readonly #recorded = new Set<string>();
  readonly #rolls = new Map<string, boolean>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  #unwatch: (() => void) | undefined;
  #closed = false;
  readonly #n: number;
  readonly #table: FaultTable;
  readonly #acceptedAt: number;
  readonly #clock: () => number;
  readonly #writers: { C: DirectionWriter; S: DirectionWriter } | null;
  readonly #actions: ConnectionFaultActions;

  constructor(
    n: number,
    table: FaultTable,
    acceptedAt: number,
    clock: () => number,
    writers: { C: DirectionWriter; S: DirectionWriter } | null,
    actions: ConnectionFaultActions,
  ) {
    this.#n = n;
    this.#table = table;
    this.#acceptedAt = acceptedAt;
    this.#clock = clock;
    this.#writers = writers;
    this.#actions = actions;
  }

  /** The connection is refused (`-refuse`), before anything else: true after writing its line. */
  refuses(): boolean {
    const refuse = this.#table.entries.find((e) => e.fault.kind === "refuse" && this.#hits(e.fault));
    if (refuse === undefined) return false;
    this.#record("s2c", refuse.fault);
    return true;
  }

  /** Starts the stages in front of the two pumps and follows the table from now on. */
  attach(outlets: Record<Side, FaultOutlet>): Record<Side, FaultStage> {
    const stages = {
      c2s: new FaultStage(outlets.c2s, { acted: (f) => this.#record("c2s", f) }, this.#clock),
      s2c: new FaultStage(outlets.s2c, { acted: (f) => this.#record("s2c", f) }, this.#clock),
    };
    (this as { stages: Record<Side, FaultStage> | null }).stages = stages;
    this.#unwatch = this.#table.watch(this.#apply);
    this.#apply();
    return stages;
  }

  /** The connection is over: timers stop, held bytes are dropped. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unwatch?.();
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
    this.stages?.c2s.destroy();
    this.stages?.s2c.destroy();
  }

  /** With bytes dropped in that direction: the fault line saying how many, and from which offset. */
  reportDropped(side: Side, stage: FaultStage): void {
    if (stage.dropped === 0 || this.#writers === null) return;
    const writer = side === "c2s" ? this.#writers.C : this.#writers.S;
    const fault = stage.droppedBy;
    writer.fault(this.#n, side, fault?.kind ?? "drop", fault, {
      dropped: stage.dropped,
      at: stage.droppedAt,
    });
  }

  #hits(f: Fault): boolean {
    if (!hitsConnection(f, this.#n)) return false;
    if (f.toxicity >= 1) return true;
    let hit = this.#rolls.get(f.name);
    if (hit === undefined) {
      hit = Math.random() < f.toxicity;
      this.#rolls.set(f.name, hit);
    }
    return hit;
  }

  #applies(f: Fault, side: Side): boolean {
    return (f.dir === "both" || f.dir === side) && this.#hits(f);
  }

  readonly #apply = (): void => {
    if (this.#closed || this.stages === null) return;
    const live = new Set<string>();
    for (const side of ["c2s", "s2c"] as const) {
      const acting: Fault[] = [];
      let blackholed: Fault | null = null;
      for (const e of this.#table.entries) {
        const f = e.fault;
        if (!this.#applies(f, side)) continue;
        if (f.kind === "reset" || f.kind === "blackhole") {
          const key = `${f.name}/${side}`;
          live.add(key);
          const at = Math.max(this.#acceptedAt, e.addedAt) + f.ms;
          if (f.kind === "blackhole" && at <= this.#clock()) {
            blackholed = f;
            if (f.closeAfterMs !== undefined && f.closeAfterMs > 0) {
              live.add(`${key}/close`);
              this.#arm(`${key}/close`, at + f.closeAfterMs, () => this.#actions.close());
            }
          } else
            this.#arm(key, at, () => {
              if (f.kind === "reset") {
                this.#record(side, f);
                this.#actions.reset();
              } else this.#apply();
            });
        } else if (f.kind !== "refuse") acting.push(f);
      }
      this.stages[side].configure(acting, blackholed);
    }
    for (const [key, t] of this.#timers) {
      if (live.has(key)) continue;
      clearTimeout(t);
      this.#timers.delete(key);
    }
  };

  #arm(key: string, at: number, action: () => void): void {
    if (this.#timers.has(key)) return;
    const fire = () => {
      this.#timers.delete(key);
      action();
    };
    this.#timers.set(key, setTimeout(fire, Math.max(0, at - this.#clock())));
  }

  #record(side: Side, f: Fault): void {
    const counts = this.counts[side];
    counts[f.kind] = (counts[f.kind] ?? 0) + 1;
    this.#actions.noted?.(f);
    const key = `${f.name}/${side}`;
    if (this.#recorded.has(key)) return;
    this.#recorded.add(key);
    if (this.#writers === null) return;
    (side === "c2s" ? this.#writers.C : this.#writers.S).fault(this.#n, side, f.kind, f, null);
  }
}
