import { type Fault, uniqueName } from "./fault-spec.js";
import { RelayError } from "./relay-error.js";

/** A fault in the table, with when it was added (timers of faults added later start then). */
export interface TableFault {
  fault: Fault;
  addedAt: number;
}

/**
 * The relay's faults, from the command line and the control API: one table for every
 * connection, which each connection consults when it changes (`version`), so that a toxic added or
 * removed through the API acts on the connections already open, as toxiproxy's do.
 *
 * @example
 * const table = new FaultTable(Date.now);
 * table.add(parseFault("-delay", "c2s:200"));
 * table.remove("delay_c2s");
 */
export class FaultTable {
  #entries: TableFault[] = [];
  /** Bumped on every change. */
  version = 0;
  readonly #listeners = new Set<() => void>();
  readonly #clock: () => number;

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  get entries(): readonly TableFault[] {
    return this.#entries;
  }

  get(name: string): Fault | undefined {
    return this.#entries.find((e) => e.fault.name === name)?.fault;
  }

  /** Adds a fault; its name is made unique (`_2`, ...) unless `strictName`, which refuses a taken one. */
  add(fault: Fault, strictName = false): Fault {
    if (strictName && this.get(fault.name) !== undefined) {
      throw new RelayError("TCP_RELAY_BAD_ARGUMENT", `a fault named "${fault.name}" already exists`);
    }
    const named = { ...fault, name: uniqueName(fault.name, (n) => this.get(n) !== undefined) };
    this.#entries = [...this.#entries, { fault: named, addedAt: this.#clock() }];
    this.#changed();
    return named;
  }

  /** Replaces the fault of that name (keeping when it was added); false if there is none. */
  replace(fault: Fault): boolean {
    const k = this.#entries.findIndex((e) => e.fault.name === fault.name);
    if (k === -1) return false;
    this.#entries = this.#entries.map((e, i) => (i === k ? { fault, addedAt: e.addedAt } : e));
    this.#changed();
    return true;
  }

  remove(name: string): boolean {
    const before = this.#entries.length;
    this.#entries = this.#entries.filter((e) => e.fault.name !== name);
    if (this.#entries.length === before) return false;
    this.#changed();
    return true;
  }

  clear(): void {
    if (this.#entries.length === 0) return;
    this.#entries = [];
    this.#changed();
  }

  /** Calls `listener` after every change, until the returned function is called. */
  watch(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    this.version++;
    for (const l of this.#listeners) l();
  }
}

/** Whether `fault` hits connection `n` by its `@N` (the Nth, 2Nth, ... connection, counting from 1). */
export function hitsConnection(fault: Fault, n: number): boolean {
  return (n + 1) % fault.every === 0;
}
