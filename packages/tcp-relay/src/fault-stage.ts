import type { Fault } from "./fault-spec.js";

/** What a fault stage forwards into: its direction's pump. */
export interface FaultOutlet {
  /** Writes the piece to the other side and logs it, as the pump does for a chunk without faults. */
  forward(piece: Buffer): void;
  /** Pauses (true) or resumes (false) the source while the stage holds too much. */
  holdSource(held: boolean): void;
  /** `-limit` was reached and everything before it forwarded: the connection is to be cut. */
  limitReached(): void;
}

/** Told each time a fault acts, to write its line the first time and count it. */
export interface FaultRecorder {
  acted(fault: Fault): void;
}

/** Bytes held above which the source is paused: memory stays bounded under any fault. */
export const HOLD_BYTES = 256 * 1024;

type Delay = Extract<Fault, { kind: "delay" }>;
type Rate = Extract<Fault, { kind: "rate" }>;
type Slice = Extract<Fault, { kind: "slice" }>;
type Limit = Extract<Fault, { kind: "limit" }>;

/**
 * One direction's faults between reading a chunk and writing it: `delay` (each chunk held, order
 * kept), `rate` (a token bucket), `slice` (pieces of about a size, that far apart), `limit` (bytes
 * past it dropped, then the cut) and `blackhole` (read and dropped). Forwarded bytes are the bytes
 * read, in order, minus those dropped, which are counted (`dropped`) and reported at the end. A
 * single timer drives the queue; nothing runs for a direction without active faults but the
 * checks in `take`.
 *
 * @example
 * const stage = new FaultStage(pump, recorder, Date.now);
 * stage.configure([parseFault("-delay", "c2s:200")], false);
 * stage.take(chunk); // forwarded 200 ms later
 */
export class FaultStage {
  #delay: Delay | null = null;
  #rate: Rate | null = null;
  #slice: Slice | null = null;
  #limit: Limit | null = null;
  #blackhole: Fault | null = null;
  /** Bytes accepted for forwarding (forwarded or queued): what `-limit` counts. */
  #accepted = 0;
  /** Bytes read and dropped (past a limit, into a blackhole). */
  dropped = 0;
  /** Stream offset of the first dropped byte (the bytes forwarded before it). */
  droppedAt = -1;
  /** The fault that dropped them: a blackhole, a limit, or the one holding bytes at a teardown. */
  droppedBy: Fault | null = null;
  #limitHit = false;
  readonly #queue: Buffer[] = [];
  readonly #due: number[] = [];
  #queuedBytes = 0;
  #held = false;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = 0;
  #lastDue = 0;
  #nextSliceAt = 0;
  #tokens = 0;
  #tokensAt = 0;
  #onDrained: (() => void) | undefined;
  #destroyed = false;
  readonly #outlet: FaultOutlet;
  readonly #recorder: FaultRecorder;
  readonly #clock: () => number;

  constructor(outlet: FaultOutlet, recorder: FaultRecorder, clock: () => number) {
    this.#outlet = outlet;
    this.#recorder = recorder;
    this.#clock = clock;
  }

  /** The faults now acting on this direction (`blackholed`: a blackhole's time has come). */
  configure(faults: readonly Fault[], blackholed: Fault | null): void {
    this.#delay = null;
    this.#rate = null;
    this.#slice = null;
    this.#limit = null;
    for (const f of faults) {
      if (f.kind === "delay") this.#delay = f;
      else if (f.kind === "rate") {
        if (this.#rate === null) this.#tokensAt = this.#clock();
        this.#rate = f;
      } else if (f.kind === "slice") this.#slice = f;
      else if (f.kind === "limit") this.#limit = f;
    }
    if (blackholed !== null && this.#blackhole === null) this.#recorder.acted(blackholed);
    if (blackholed !== null) this.droppedBy ??= blackholed;
    this.#blackhole = blackholed;
    // A delay removed releases what it held; the queue goes on under what is left.
    if (this.#delay === null) this.#due.fill(0);
    if (this.#queue.length > 0) this.#schedule(0);
  }

  /** Bytes waiting in the stage. */
  get pending(): number {
    return this.#queuedBytes;
  }

  take(chunk: Buffer): void {
    if (this.#destroyed) return;
    if (this.#blackhole !== null || this.#limitHit) {
      this.#drop(chunk.length, this.#blackhole ?? this.#limit);
      if (this.#blackhole !== null) this.#recorder.acted(this.#blackhole);
      return;
    }
    let piece = chunk;
    const limit = this.#limit;
    if (limit !== null && this.#accepted + chunk.length >= limit.bytes) {
      const room = limit.bytes - this.#accepted;
      this.#recorder.acted(limit);
      this.#limitHit = true;
      piece = chunk.subarray(0, room);
      this.#accepted += room;
      if (room < chunk.length) this.#drop(chunk.length - room, limit);
    } else this.#accepted += piece.length;
    if (this.#delay === null && this.#rate === null && this.#slice === null && this.#queue.length === 0) {
      if (piece.length > 0) this.#outlet.forward(piece);
      if (this.#limitHit) this.#outlet.limitReached();
      return;
    }
    if (piece.length > 0) {
      const now = this.#clock();
      let due = now;
      const delay = this.#delay;
      if (delay !== null) {
        this.#recorder.acted(delay);
        const jitter = delay.jitterMs === 0 ? 0 : Math.round((Math.random() * 2 - 1) * delay.jitterMs);
        // Order is kept: a chunk never overtakes the one before it, whatever its jitter.
        due = Math.max(now + delay.ms + jitter, this.#lastDue);
        this.#lastDue = due;
      }
      if (this.#rate !== null) this.#recorder.acted(this.#rate);
      if (this.#slice !== null) this.#recorder.acted(this.#slice);
      this.#queue.push(piece);
      this.#due.push(due);
      this.#queuedBytes += piece.length;
      if (!this.#held && this.#queuedBytes > HOLD_BYTES) {
        this.#held = true;
        this.#outlet.holdSource(true);
      }
    }
    this.#run();
  }

  /** The source ended: `done` runs once everything held has been forwarded. */
  end(done: () => void): void {
    if (this.#queue.length === 0 || this.#destroyed) done();
    else this.#onDrained = done;
  }

  /** The connection is torn down: what is held is dropped, and a pending end runs now. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#queuedBytes > 0) {
      this.#accepted -= this.#queuedBytes;
      this.#drop(this.#queuedBytes, this.#delay ?? this.#rate ?? this.#slice);
    }
    this.#queue.length = 0;
    this.#due.length = 0;
    this.#queuedBytes = 0;
    const done = this.#onDrained;
    this.#onDrained = undefined;
    done?.();
  }

  #drop(bytes: number, by: Fault | null): void {
    if (this.droppedAt === -1) this.droppedAt = this.#accepted;
    this.droppedBy ??= by;
    this.dropped += bytes;
  }

  /** Forwards what may go now; sets the timer for the rest. */
  #run(): void {
    const now = this.#clock();
    while (this.#queue.length > 0) {
      const due = this.#due[0]!;
      if (due > now) {
        this.#schedule(due - now);
        return;
      }
      const slice = this.#slice;
      if (slice !== null && this.#nextSliceAt > now) {
        this.#schedule(this.#nextSliceAt - now);
        return;
      }
      const head = this.#queue[0]!;
      let size = head.length;
      if (slice !== null) {
        const v = slice.variation === 0 ? 0 : Math.round((Math.random() * 2 - 1) * slice.variation);
        size = Math.min(size, slice.bytes + v);
      }
      const rate = this.#rate;
      if (rate !== null) {
        const perMs = (rate.kibPerSecond * 1024) / 1000;
        // A bucket of 100 ms of traffic: a timer late by less than that (a busy machine) loses no
        // time, and no burst after an idle spell goes beyond it.
        this.#tokens = Math.min(this.#tokens + (now - this.#tokensAt) * perMs, Math.max(perMs * 100, 1));
        this.#tokensAt = now;
        // Wait for a useful amount (about 5 ms of traffic) rather than wake for every few bytes.
        const want = Math.min(size, Math.max(1, Math.floor(perMs * 5)));
        if (this.#tokens < want) {
          this.#schedule(Math.max(1, Math.ceil((want - this.#tokens) / perMs)));
          return;
        }
        size = Math.min(size, Math.floor(this.#tokens));
        this.#tokens -= size;
      }
      const piece = size === head.length ? head : head.subarray(0, size);
      if (size === head.length) {
        this.#queue.shift();
        this.#due.shift();
      } else this.#queue[0] = head.subarray(size);
      this.#queuedBytes -= size;
      if (slice !== null) this.#nextSliceAt = now + slice.ms;
      this.#outlet.forward(piece);
      if (this.#destroyed) return;
      if (this.#held && this.#queuedBytes < HOLD_BYTES / 2) {
        this.#held = false;
        this.#outlet.holdSource(false);
      }
    }
    if (this.#held) {
      this.#held = false;
      this.#outlet.holdSource(false);
    }
    if (this.#limitHit) this.#outlet.limitReached();
    const done = this.#onDrained;
    this.#onDrained = undefined;
    done?.();
  }

  #schedule(ms: number): void {
    const at = this.#clock() + ms;
    if (this.#timer !== undefined) {
      if (this.#timerAt <= at) return;
      clearTimeout(this.#timer);
    }
    this.#timerAt = at;
    this.#timer = setTimeout(this.#onTimer, ms);
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.#run();
  };
}
